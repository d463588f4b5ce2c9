// A team's command allow-list: the command lines its schedules may run on a worker host, as argv patterns. A pattern
// is an array matched element by element against the program's argv:
//   - a plain string matches that argument exactly;
//   - `*` alone matches any one argument;
//   - `*` inside a longer element matches any characters but `/` (`/srv/jobs/*.sh`: a script in that folder, not
//     /srv/jobs/../../tmp/x.sh);
//   - `**` as the LAST element matches any number of further arguments (none included).
// e.g. [["pg_dump", "-Fc", "*"], ["/srv/jobs/*.sh", "**"]]. A shell.command `script` runs as /bin/sh -c <script>,
// so it is matched as ["/bin/sh", "-c", <script>] (allow it with ["/bin/sh", "-c", "*"]). An empty list allows any
// command the program permission allows.
import { z } from "zod";

const element = z
  .string({ error: "each pattern element must be a string" })
  .min(1, { error: "a pattern element must not be empty" })
  .max(4096, { error: "a pattern element may have at most 4096 characters" })
  .refine((s) => !s.includes("\0"), { error: "a pattern element must not contain a NUL character" });

export const argvPatternSchema = z
  .array(element, { error: 'each pattern must be an array of strings, e.g. ["pg_dump", "-Fc", "*"]' })
  .min(1, { error: "a pattern must name at least the program" })
  .max(256, { error: "a pattern may have at most 256 elements" })
  .superRefine((p, ctx) => {
    if (p[0] === "**") ctx.addIssue({ code: "custom", message: "a pattern's first element names the program: it cannot be **" });
    p.forEach((e, i) => {
      if (e === "**" && i !== p.length - 1) ctx.addIssue({ code: "custom", path: [i], message: "** may only be the last element" });
    });
  });

export const commandAllowListSchema = z
  .array(argvPatternSchema, { error: "the command allow-list must be an array of argv patterns" })
  .max(200, { error: "a command allow-list may have at most 200 patterns" });
export type CommandAllowList = z.infer<typeof commandAllowListSchema>;

function elementMatches(pattern: string, arg: string): boolean {
  if (pattern === "*") return true;
  if (!pattern.includes("*")) return pattern === arg;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]*")}$`,
  );
  return re.test(arg);
}

/** Whether one pattern matches the argv. */
export function argvMatches(pattern: readonly string[], argv: readonly string[]): boolean {
  const rest = pattern.at(-1) === "**";
  const fixed = rest ? pattern.slice(0, -1) : pattern;
  if (rest ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((p, i) => elementMatches(p, argv[i]!));
}

/** The first pattern that matches the argv (its index), or -1; an empty list allows everything (0 is not returned). */
export function findAllowingPattern(list: CommandAllowList, argv: readonly string[]): number {
  return list.findIndex((p) => argvMatches(p, argv));
}

/** A pattern as it reads in messages: ["pg_dump","-Fc","*"]. */
export const showArgv = (argv: readonly string[]) => JSON.stringify(argv);
