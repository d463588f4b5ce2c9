// Handler modules for attempt-thread.test.ts: what a task's payload, secrets and database handle reach in a thread.
import fs from "node:fs";
import { defineHandler, z } from "../../../sdk/index.ts";

export const probeEcho = defineHandler({
  name: "probe.echo",
  description: "returns its run id and its payload's text as its summary",
  payload: z.strictObject({ text: z.string() }),
  async run(p, ctx) {
    return { summary: `${ctx.runId}:${p.text}` };
  },
});

export const probeDb = defineHandler({
  name: "probe.db",
  description: "says how its first statement went, now or (afterRunFile) after its run ended",
  payload: z.strictObject({ afterRunFile: z.string().optional() }),
  async run(p, ctx) {
    const file = p.afterRunFile;
    if (file) {
      // Work left behind: it reaches for the database only once the run is over.
      setTimeout(() => {
        void Promise.resolve()
          .then(() => ctx.db.query("SELECT 1"))
          .then(
            () => fs.writeFileSync(file, "ran"),
            (err: Error) => fs.writeFileSync(file, err.message),
          );
      }, 20);
      return { summary: "left work behind" };
    }
    return {
      summary: await ctx.db.query("SELECT 1").then(
        () => "connected",
        (err: Error) => err.message,
      ),
    };
  },
});
