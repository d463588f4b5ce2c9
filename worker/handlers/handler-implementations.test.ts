import { describe, expect, it } from "vitest";
import { listHandlers } from "../../core/handlers/handler-registry";
import { handlerImplementations } from "./index";

describe("built-in handler implementations", () => {
  it("exist for every registered spec and reuse its schema", () => {
    for (const h of listHandlers()) {
      const impl = handlerImplementations.get(h.name);
      expect(impl, h.name).toBeDefined();
      expect(typeof impl!.run).toBe("function");
    }
    expect(handlerImplementations.size).toBe(listHandlers().length);
  });
});
