import { describe, expect, it } from "vitest";
import { firstDifference, showHashDifference } from "./hash-difference";

const published = "3f9a0c1d2e4b5a6978abcdef0123456789abcdef0123456789abcdef01234567";

describe("showing two hashes that differ", () => {
  it("hashes that share their first 12 characters are shown far enough to differ, with the position", () => {
    const rewritten = `${published.slice(0, 40)}f${published.slice(41)}`;
    const shown = showHashDifference(rewritten, published);
    expect(shown.a).not.toBe(shown.b);
    expect(shown.position).toBe(41);
    expect(shown.a).toBe(`${rewritten.slice(0, 48)}…`);
    expect(shown.b).toBe(`${published.slice(0, 48)}…`);
  });

  it("hashes that differ early stay short", () => {
    const other = `0${published.slice(1)}`;
    expect(showHashDifference(other, published)).toEqual({ a: `${other.slice(0, 12)}…`, b: `${published.slice(0, 12)}…`, position: 1 });
  });

  it("a difference in the last characters shows the whole hashes", () => {
    const other = `${published.slice(0, 63)}8`;
    const shown = showHashDifference(other, published);
    expect(shown).toEqual({ a: other, b: published, position: 64 });
  });

  it("finds the first differing character, or none", () => {
    expect(firstDifference("abc", "abc")).toBe(-1);
    expect(firstDifference("abc", "abd")).toBe(2);
    expect(firstDifference("ab", "abc")).toBe(2);
  });
});
