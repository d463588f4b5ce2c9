import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answerOutsideContract } from "./answer-outside-contract";

describe("answerOutsideContract", () => {
  const spec = { answer: z.object({ id: z.string(), state: z.enum(["queued", "running"]) }) };

  it("passes an answer the contract describes", () => {
    expect(answerOutsideContract(spec, 200, { id: "r1", state: "queued" })).toBeNull();
  });

  it("names each field of an answer outside the contract, without its value", () => {
    const issues = answerOutsideContract(spec, 200, { id: 42, state: "secret-value-xyz" });
    expect(issues).toHaveLength(2);
    expect(issues!.join("\n")).toMatch(/^id: /m);
    expect(issues!.join("\n")).toMatch(/^state: /m);
    expect(issues!.join("\n")).not.toContain("secret-value-xyz");
  });

  it("leaves errors, non-JSON answers and routes without a contract alone", () => {
    expect(answerOutsideContract(spec, 404, { error: { code: "not_found" } })).toBeNull();
    expect(answerOutsideContract({ ...spec, answerMedia: "text/csv" }, 200, "a,b")).toBeNull();
    expect(answerOutsideContract(undefined, 200, { anything: true })).toBeNull();
  });
});
