import { describe, expect, it } from "vitest";
import { argvMatches, commandAllowListSchema, findAllowingPattern } from "./command-allow-list";

describe("command allow-list argv patterns", () => {
  it("matches element by element: exact strings, * as one argument, ** as the rest", () => {
    expect(argvMatches(["pg_dump", "-Fc", "*"], ["pg_dump", "-Fc", "db/main"])).toBe(true);
    expect(argvMatches(["pg_dump", "-Fc", "*"], ["pg_dump", "-Fc"])).toBe(false);
    expect(argvMatches(["pg_dump", "-Fc", "*"], ["pg_dump", "-Fc", "a", "b"])).toBe(false);
    expect(argvMatches(["pg_dump", "**"], ["pg_dump"])).toBe(true);
    expect(argvMatches(["pg_dump", "**"], ["pg_dump", "-a", "-b"])).toBe(true);
    expect(argvMatches(["pg_dump", "**"], ["pg_restore"])).toBe(false);
  });

  it("a * inside an element stays within one path segment, and no other character is special", () => {
    expect(argvMatches(["/srv/jobs/*.sh"], ["/srv/jobs/nightly.sh"])).toBe(true);
    expect(argvMatches(["/srv/jobs/*.sh"], ["/srv/jobs/../../tmp/evil.sh"])).toBe(false);
    expect(argvMatches(["/srv/jobs/*.sh"], ["/srv/jobs/x.shx"])).toBe(false);
    expect(argvMatches(["a.b"], ["axb"])).toBe(false);
    expect(argvMatches(["(x)+"], ["(x)+"])).toBe(true);
  });

  it("finds the allowing pattern; an empty list finds none (the caller reads empty as no restriction)", () => {
    expect(findAllowingPattern([["a"], ["b", "*"]], ["b", "1"])).toBe(1);
    expect(findAllowingPattern([], ["b"])).toBe(-1);
  });

  it("validates patterns: arrays of non-empty strings, ** only last and never the program", () => {
    expect(commandAllowListSchema.safeParse([["pg_dump", "**"]]).success).toBe(true);
    expect(commandAllowListSchema.safeParse([["**"]]).success).toBe(false);
    expect(commandAllowListSchema.safeParse([["a", "**", "b"]]).success).toBe(false);
    expect(commandAllowListSchema.safeParse([[]]).success).toBe(false);
    expect(commandAllowListSchema.safeParse([["a", ""]]).success).toBe(false);
    expect(commandAllowListSchema.safeParse(["pg_dump"]).success).toBe(false);
  });
});
