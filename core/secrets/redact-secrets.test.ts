import { describe, expect, it } from "vitest";
import { createRedactor, secretForms } from "./redact-secrets";

// A value with everything that changes under escaping: lines, quotes, backslashes, a tab, a control
// character, non-ASCII, spaces and URL-special characters.
const VALUE = 'line-one "quoted" \\ back\nsecond line: p@ss/w+rd=?&\n\tthird-line-é\u0001end';
const NAME = "MULTI";
const MARK = "[secret MULTI]";
const redact = createRedactor([{ name: NAME, value: VALUE }]);
const lines = VALUE.split("\n");

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const json = (s: string) => JSON.stringify(s).slice(1, -1);

const forms: [string, string][] = [
  ["raw", VALUE],
  ["JSON-escaped", json(VALUE)],
  ["JSON-escaped twice", json(json(VALUE))],
  ["JSON-escaped with non-ASCII as \\uXXXX", json(VALUE).replace(/é/g, "\\u00e9")],
  ["percent-encoded", encodeURIComponent(VALUE)],
  ["percent-encoded, lower-case hex", encodeURIComponent(VALUE).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
  ["form-encoded (space as +)", encodeURIComponent(VALUE).replace(/%20/g, "+")],
  ["base64", b64(VALUE)],
  ["base64url", b64url(VALUE)],
  ["base64 inside a longer base64 text (offset 1)", b64(`x${VALUE}y`)],
  ["base64 inside a longer base64 text (offset 2)", b64(`xy${VALUE}zz`)],
  ["base64url inside a longer text (offset 1)", b64url(`:${VALUE}`)],
  ["first line alone", lines[0]!],
  ["second line alone", lines[1]!],
  ["third line alone, indented", lines[2]!],
  ["third line trimmed", lines[2]!.trim()],
  ["a line JSON-escaped", json(lines[2]!)],
  ["a line base64", b64(lines[1]!)],
  ["a line percent-encoded", encodeURIComponent(lines[1]!)],
];

describe("redaction of a multi-line value with quotes and backslashes", () => {
  it.each(forms)("takes out its %s form, inside other text", (_label, form) => {
    const out = redact(`before ${form} after`);
    expect(out).toContain(MARK);
    // No line of the value (of meaningful length) survives in any of its forms.
    for (const f of secretForms(VALUE)) expect(out).not.toContain(f);
    expect(out.startsWith("before ")).toBe(true);
  });

  it("takes values out of nested fields, keys and arrays, and leaves numbers and other text alone", () => {
    expect(redact({ m: `a ${VALUE} b`, n: [{ [json(VALUE)]: b64(VALUE) }], k: 3, t: "nothing here" })).toEqual({
      m: `a ${MARK} b`,
      n: [{ [MARK]: MARK }],
      k: 3,
      t: "nothing here",
    });
  });

  it("replaces the longest value first, and short lines of a value are not matched alone", () => {
    const r = createRedactor([
      { name: "SHORT", value: "abcd" },
      { name: "LONG", value: "abcd-efgh" },
      { name: "LINES", value: "ok\nlong enough line" },
    ]);
    expect(r("x abcd-efgh y abcd ok long enough line")).toBe("x [secret LONG] y [secret SHORT] ok [secret LINES]");
  });

  it("says how long its longest form is (what a stream holds back before cutting), and is a no-op without secrets", () => {
    expect(redact.longestForm).toBeGreaterThanOrEqual(json(json(VALUE)).length);
    const none = createRedactor([]);
    expect(none("anything")).toBe("anything");
    expect(none.longestForm).toBe(0);
  });
});
