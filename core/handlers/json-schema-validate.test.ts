import { describe, expect, it } from "vitest";
import { validateAgainstSchema } from "./json-schema-validate";

const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    account: { type: "string", pattern: "^[a-z]+$" },
    amount: { type: "integer", minimum: 1 },
    items: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    mode: { enum: ["fast", "safe"] },
    // Beyond the partial checker this replaced: conditionals, formats of combinators, dependent requirements.
    currency: { type: "string" },
  },
  required: ["account", "amount"],
  additionalProperties: false,
  if: { properties: { mode: { const: "fast" } }, required: ["mode"] },
  then: { required: ["currency"] },
  dependentRequired: { currency: ["amount"] },
};

describe("validateAgainstSchema (JSON Schema 2020-12)", () => {
  it("accepts a payload that fits", () => {
    expect(validateAgainstSchema(schema, { account: "cash", amount: 5, items: [{ id: "x" }] })).toEqual([]);
  });

  it("names each bad field by its dotted path, leaf errors only", () => {
    const problems = validateAgainstSchema(schema, { account: "Cash", amount: 0, items: [{}], extra: true });
    const paths = problems.map((p) => p.path).sort();
    expect(paths).toEqual(["account", "amount", "extra", "items.0"]);
    expect(problems.find((p) => p.path === "extra")!.message).toMatch(/not a field/);
    expect(problems.find((p) => p.path === "amount")!.message).toMatch(/amount: .*minimum|amount: .*1/i);
  });

  it("applies if/then, which a hand-written checker did not", () => {
    expect(validateAgainstSchema(schema, { account: "cash", amount: 1, mode: "fast" }).length).toBeGreaterThan(0);
    expect(validateAgainstSchema(schema, { account: "cash", amount: 1, mode: "fast", currency: "EUR" })).toEqual([]);
  });

  it("follows the draft a schema declares", () => {
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "number", exclusiveMinimum: 3 } },
    };
    expect(validateAgainstSchema(draft7, { n: 3 })).toHaveLength(1);
    expect(validateAgainstSchema(draft7, { n: 4 })).toEqual([]);
  });
});
