// Whatever a handler throws becomes a readable, bounded line: never "[object Object]", never a throw of its own.
import { describe, expect, it } from "vitest";
import { describeThrown, MAX_DESCRIPTION } from "./describe-thrown";

describe("describeThrown", () => {
  const circular: Record<string, unknown> = { code: "E1" };
  circular.self = circular;
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error("no");
      },
      ownKeys() {
        throw new Error("no");
      },
    },
  );
  const errorWithThrowingMessage = new Error("x");
  Object.defineProperty(errorWithThrowingMessage, "message", {
    get() {
      throw new Error("no");
    },
  });
  const cases: [string, unknown, string | RegExp][] = [
    ["an Error", new Error("boom"), "boom"],
    ["a named error", new RangeError("too big"), "RangeError: too big"],
    ["a cause chain", new Error("a", { cause: new Error("b", { cause: "c" }) }), "a (caused by: b (caused by: c))"],
    ["an AggregateError", new AggregateError([new Error("x"), 3], "several"), "AggregateError: several [x; a number was thrown: 3]"],
    ["a plain object", { code: "E_LEDGER" }, 'an object was thrown: {"code":"E_LEDGER"}'],
    ["a circular object", circular, 'an object was thrown: {"code":"E1","self":"[circular]"}'],
    ["a string", "closed", "closed"],
    ["a number", 42, "a number was thrown: 42"],
    ["a bigint", 42n, "a number was thrown: 42n"],
    ["null", null, "null was thrown (no error value)"],
    ["undefined", undefined, "undefined was thrown (no error value)"],
    ["a symbol", Symbol("s"), "a symbol was thrown: Symbol(s)"],
    ["an array", [1, { a: 2 }], 'an array was thrown: [1,{"a":2}]'],
    ["a Map", new Map([[1, 2]]), "an object was thrown: Map"],
    ["an object whose every trap throws", hostile, /^an object was thrown/],
    ["an error whose message getter throws", errorWithThrowingMessage, "Error"],
  ];
  it.each(cases)("%s", (_what, value, expected) => {
    const text = describeThrown(value);
    if (typeof expected === "string") expect(text).toBe(expected);
    else expect(text).toMatch(expected);
    expect(text).not.toContain("[object Object]");
  });

  it("stays bounded", () => {
    expect(describeThrown({ blob: "x".repeat(100_000) }).length).toBeLessThanOrEqual(MAX_DESCRIPTION);
  });
});
