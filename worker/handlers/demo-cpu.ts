// demo.cpu: a loop that never yields, so the thread cannot even receive its abort; only a
// terminate (which interrupts V8) stops it.
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { demoCpuSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const demoCpu = defineHandler({
  ...demoCpuSpec,
  async run(p, ctx) {
    ctx.log("info", p.ms === undefined ? "spinning forever" : `spinning for ${p.ms} ms`);
    const end = p.ms === undefined ? Infinity : performance.now() + p.ms;
    let spins = 0;
    while (performance.now() < end) spins++;
    return { records: 1, summary: `spun ${spins} times` };
  },
});
