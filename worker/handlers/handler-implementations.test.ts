import { describe, expect, it } from "vitest";
import { BUILTIN_HANDLER_SPECS } from "../../core/handlers/builtin-handler-specs";
import { isHandlerDefinition } from "../../core/handlers/define-handler";
import { handlerImplementations } from "./index";

describe("built-in handler implementations", () => {
  it("exist for every built-in spec, made with defineHandler", () => {
    for (const spec of BUILTIN_HANDLER_SPECS) {
      const impl = handlerImplementations.get(spec.name);
      expect(impl, spec.name).toBeDefined();
      expect(isHandlerDefinition(impl), spec.name).toBe(true);
      expect(impl!.payload, spec.name).toBe(spec.payload);
    }
    expect(handlerImplementations.size).toBe(BUILTIN_HANDLER_SPECS.length);
  });
});
