// demo.sleep: a well-behaved slow handler; it stops as soon as its signal is aborted.
import { setTimeout as sleep } from "node:timers/promises";
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { demoSleepSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const demoSleep = defineHandler({
  ...demoSleepSpec,
  async run(p, ctx) {
    await sleep(p.ms, undefined, { signal: ctx.signal });
    return { records: p.records, summary: `slept ${p.ms} ms` };
  },
});
