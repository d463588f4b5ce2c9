import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../errors";
import { parseDocument, parseEntry, renderDocument } from "./schedules-document";

const example = fs.readFileSync(path.resolve(import.meta.dirname, "../../../examples/schedules.yaml"), "utf8");

describe("the schedules document", () => {
  it("examples/schedules.yaml is valid and already in the canonical form an export writes", () => {
    const doc = parseDocument(example);
    for (const [name, entry] of Object.entries(doc.schedules)) expect(() => parseEntry(name, entry)).not.toThrow();
    expect(renderDocument(doc, "yaml")).toBe(example);
  });

  it("renders keys sorted at every level, whatever order they came in", () => {
    const text = renderDocument(
      { version: 1, schedules: { b: { trigger: { kind: "interval", everySeconds: 5 }, handler: "x" }, a: { handler: "y" } } },
      "json",
    );
    expect(text).toBe(
      `${JSON.stringify({ schedules: { a: { handler: "y" }, b: { handler: "x", trigger: { everySeconds: 5, kind: "interval" } } }, version: 1 }, null, 2)}\n`,
    );
  });

  it("refuses a duplicate name instead of keeping the last one", () => {
    const twice = "version: 1\nschedules:\n  a: {handler: x}\n  a: {handler: y}\n";
    expect(() => parseDocument(twice)).toThrow(ValidationError);
    try {
      parseDocument(twice);
    } catch (err) {
      expect((err as ValidationError).fields).toHaveProperty(["document"]);
      expect((err as ValidationError).message).toMatch(/unique/i);
    }
  });

  it("names the schedule and the field of an invalid entry", () => {
    try {
      parseEntry("nightly", { handler: "x", trigger: { kind: "interval", everySeconds: 0 }, tags: ["UPPER"] });
      expect.unreachable();
    } catch (err) {
      const fields = (err as ValidationError).fields!;
      expect(Object.keys(fields).sort()).toEqual(["schedules.nightly.tags.0", "schedules.nightly.trigger.everySeconds"]);
      expect((err as ValidationError).message).toMatch(/^Schedule nightly: /);
    }
  });
});
