// demo.flaky: fails with probability p, to exercise retries and failure alerts.
import { setTimeout as sleep } from "node:timers/promises";
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { demoFlakySpec } from "../../core/handlers/builtin-handler-specs.ts";

export const demoFlaky = defineHandler({
  ...demoFlakySpec,
  async run(p, ctx) {
    if (p.ms > 0) await sleep(p.ms, undefined, { signal: ctx.signal });
    if (Math.random() < p.p) throw new Error(`demo.flaky failed on purpose (p = ${p.p})`);
    return { records: p.records, summary: "survived" };
  },
});
