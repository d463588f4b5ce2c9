import { describe, expect, it } from "vitest";
import { checkPayload, type JsonSchema } from "./json-schema-check";

const ledger: JsonSchema = {
  type: "object",
  properties: { from: { type: "string" }, to: { type: "string" }, amount: { type: "integer", minimum: 1 } },
  required: ["from", "to", "amount"],
  additionalProperties: false,
};

describe("checkPayload", () => {
  it("accepts a payload that fits the handler's schema", () => {
    expect(checkPayload('{"from":"cash","to":"bank","amount":5}', ledger)).toEqual([]);
  });
  it("reports broken JSON with the parser's reason", () => {
    expect(checkPayload('{"from":', ledger)[0]?.message).toMatch(/Not valid JSON/);
  });
  it("names missing required fields, wrong types and unknown keys", () => {
    const problems = checkPayload('{"from":"cash","amount":"5","extra":1}', ledger);
    expect(problems.map((p) => p.path).sort()).toEqual(["", "amount", "extra"]);
    expect(problems.find((p) => p.path === "")!.message).toMatch(/"to"/);
    expect(problems.find((p) => p.path === "amount")!.message).toMatch(/integer/);
    expect(problems.find((p) => p.path === "extra")!.message).toMatch(/not a field/);
  });
  it("checks what a user's schema says beyond types: patterns, formats of arrays, conditionals", () => {
    const schema = {
      type: "object",
      properties: { ids: { type: "array", items: { type: "string", pattern: "^po_" }, minItems: 1 }, mode: { enum: ["a", "b"] } },
      if: { properties: { mode: { const: "b" } } },
      then: { required: ["ids"] },
    } as JsonSchema;
    expect(checkPayload('{"ids":["po_1","x"]}', schema).map((p) => p.path)).toEqual(["ids.1"]);
    expect(checkPayload('{"mode":"b"}', schema)).toHaveLength(1);
    expect(checkPayload('{"mode":"b","ids":["po_9"]}', schema)).toEqual([]);
  });
  it("refuses a payload that is not an object", () => {
    expect(checkPayload("[1]", ledger)[0]?.message).toMatch(/JSON object/);
  });
});
