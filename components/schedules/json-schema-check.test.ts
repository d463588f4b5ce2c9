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
    const problems = checkPayload('{"from":"cash","amount":"5","extra":1}', ledger).map((p) => p.message);
    expect(problems).toContain("to is required");
    expect(problems).toContain("amount must be integer, not string");
    expect(problems).toContain("extra is not a field of this handler");
  });
  it("does not demand a required field that has a default", () => {
    const schema: JsonSchema = { type: "object", properties: { ms: { type: "integer", default: 1000 } }, required: ["ms"] };
    expect(checkPayload("{}", schema)).toEqual([]);
  });
  it("refuses a payload that is not an object", () => {
    expect(checkPayload("[1]", ledger)[0]?.message).toMatch(/JSON object/);
  });
});
