// demo.noop: returns at once; measures the engine's own overhead.
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { demoNoopSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const demoNoop = defineHandler({
  ...demoNoopSpec,
  async run(p) {
    return p.records === undefined ? {} : { records: p.records };
  },
});
