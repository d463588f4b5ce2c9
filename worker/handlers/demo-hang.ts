// demo.hang: the zombie-maker. It never settles and ignores its abort signal, so only terminating
// its thread ends it.
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { demoHangSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const demoHang = defineHandler({
  ...demoHangSpec,
  async run(_p, ctx) {
    ctx.signal.addEventListener("abort", () => ctx.log("warn", "abort received and ignored"));
    ctx.log("info", "hanging forever");
    await new Promise<never>(() => undefined);
  },
});
