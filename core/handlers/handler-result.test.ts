import { describe, expect, it } from "vitest";
import { parseHandlerResult } from "./handler-result";

describe("handler result", () => {
  it("accepts records and summary, treats void as empty, rejects the rest", () => {
    expect(parseHandlerResult({ records: 3, summary: "ok" })).toEqual({ ok: true, result: { records: 3, summary: "ok" } });
    expect(parseHandlerResult(undefined)).toEqual({ ok: true, result: {} });
    const bad = parseHandlerResult({ records: -1 });
    expect(bad.ok).toBe(false);
    expect(parseHandlerResult({ rows: 1 }).ok).toBe(false);
  });
});
