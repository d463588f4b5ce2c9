import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { getHandlerDefinition, listHandlers, validateHandlerPayload } from "./handler-registry";
import { parseHandlerResult } from "./handler-result";

function fieldsOf(fn: () => unknown): Record<string, string> {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).fields ?? {};
  }
  throw new Error("expected a ValidationError");
}

describe("handler registry", () => {
  it("lists every built-in with a JSON schema of its payload", () => {
    const names = listHandlers().map((h) => h.name);
    expect(names).toEqual(["demo.cpu", "demo.flaky", "demo.hang", "demo.noop", "demo.sleep", "http.request", "ledger.post", "shell.command"]);
    const ledger = listHandlers().find((h) => h.name === "ledger.post")!;
    expect(ledger.payloadSchema).toMatchObject({ type: "object", required: ["from", "to", "amount"] });
    expect(getHandlerDefinition("nope")).toBeUndefined();
  });

  it("names the unknown handler field", () => {
    expect(fieldsOf(() => validateHandlerPayload("nope.nothing", {}))).toHaveProperty("handler");
  });

  it("validates ledger.post payloads field by field", () => {
    expect(validateHandlerPayload("ledger.post", { from: "a", to: "b", amount: 5 })).toEqual({ from: "a", to: "b", amount: 5 });
    expect(fieldsOf(() => validateHandlerPayload("ledger.post", { from: "a", to: "b", amount: 0 }))).toHaveProperty("payload.amount");
    expect(fieldsOf(() => validateHandlerPayload("ledger.post", { from: "a", to: "a", amount: 1 }))).toHaveProperty("payload.to");
    expect(fieldsOf(() => validateHandlerPayload("ledger.post", { from: "a", to: "b", amount: 1.5 }))["payload.amount"]).toMatch(/whole/);
    expect(fieldsOf(() => validateHandlerPayload("ledger.post", { from: "a", to: "b", amount: 1, extra: 1 }))).toHaveProperty("payload");
  });

  it("accepts only http and https URLs for http.request and fills defaults", () => {
    expect(validateHandlerPayload("http.request", { url: "https://example.com/x" })).toEqual({
      method: "GET",
      url: "https://example.com/x",
      headers: {},
      timeoutMs: 10000,
    });
    expect(fieldsOf(() => validateHandlerPayload("http.request", { url: "file:///etc/passwd" }))["payload.url"]).toMatch(/http/);
    expect(fieldsOf(() => validateHandlerPayload("http.request", { url: "https://x", method: "TRACE" }))).toHaveProperty("payload.method");
  });

  it("checks demo payloads", () => {
    expect(validateHandlerPayload("demo.sleep", { ms: 10 })).toEqual({ ms: 10, records: 1 });
    expect(fieldsOf(() => validateHandlerPayload("demo.flaky", { p: 2 }))).toHaveProperty("payload.p");
    expect(validateHandlerPayload("demo.hang", undefined)).toEqual({});
  });
});

describe("handler result", () => {
  it("accepts records and summary, treats void as empty, rejects the rest", () => {
    expect(parseHandlerResult({ records: 3, summary: "ok" })).toEqual({ ok: true, result: { records: 3, summary: "ok" } });
    expect(parseHandlerResult(undefined)).toEqual({ ok: true, result: {} });
    const bad = parseHandlerResult({ records: -1 });
    expect(bad.ok).toBe(false);
    expect(parseHandlerResult({ rows: 1 }).ok).toBe(false);
  });
});
