// The documentation's own test: every relative link and #anchor in README.md and docs/**/*.md resolves (GitHub's
// anchor rules), the settings reference lists exactly the VIGIL_* settings the code reads, and each CLI help text
// in the CLI reference is what the command prints. `npm test` runs it through scripts/docs-check.test.ts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export interface DocsCheckOptions {
  /** Link targets (repository paths) allowed to be absent for now: pages another change adds. Present ones are checked. */
  allowMissing?: readonly string[];
}

const SETTINGS_DOC = "docs/reference/settings.md";
const CLI_DOC = "docs/reference/cli.md";
/** Where settings are read: the parsed environment, and the few programs that read process.env themselves. */
const CODE_DIRS = ["core", "worker", "scripts", "app", "components", "sdk", "cli"];
const CODE_FILES = ["proxy.ts", "playwright.config.ts"];
/** The commands `npm run <name>` offers to operators; each has a section in the CLI reference. */
export const CLI_COMMANDS = ["vigil", "audit-verify", "backup", "restore", "create-admin", "migrate", "worker"];

export function checkDocs(root: string, opts: DocsCheckOptions = {}): string[] {
  return [...checkLinks(root, opts), ...checkSettings(root), ...checkCli(root)];
}

/** README.md and every Markdown file under docs/, as repository paths. */
export function docFiles(root: string): string[] {
  const out = fs.existsSync(path.join(root, "README.md")) ? ["README.md"] : [];
  const walk = (dir: string) => {
    if (!fs.existsSync(path.join(root, dir))) return;
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".md")) out.push(rel);
    }
  };
  walk("docs");
  return out.sort();
}

/** The text outside fenced code blocks, line by line (code lines become empty, so line numbers stay right). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]![0]!.repeat(m[1]!.length);
      else if (m[1]!.startsWith(fence)) fence = null;
      return "";
    }
    return fence === null ? line : "";
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 … */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(markdown)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const html = [...line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((x) => x[1]!);
    for (const id of html) out.add(id);
    if (!h) continue;
    const text = h[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/`/g, "");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function checkLinks(root: string, opts: DocsCheckOptions): string[] {
  const problems: string[] = [];
  const allowMissing = new Set(opts.allowMissing ?? []);
  const anchorCache = new Map<string, Set<string>>();
  const anchorsAt = (rel: string) => {
    if (!anchorCache.has(rel)) anchorCache.set(rel, anchorsOf(fs.readFileSync(path.join(root, rel), "utf8")));
    return anchorCache.get(rel)!;
  };
  for (const file of docFiles(root)) {
    const lines = proseLines(fs.readFileSync(path.join(root, file), "utf8"));
    lines.forEach((raw, i) => {
      const line = raw.replace(/`[^`]*`/g, "");
      for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
        const where = `${file}:${i + 1}`;
        const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
        const rel = pathPart === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
        if (rel.startsWith("..")) {
          problems.push(`${where}: link ${target} leaves the repository`);
          continue;
        }
        const abs = path.join(root, rel);
        if (!fs.existsSync(abs)) {
          if (!allowMissing.has(rel)) problems.push(`${where}: link ${target} — ${rel} does not exist`);
          continue;
        }
        if (anchor !== undefined && rel.endsWith(".md") && !anchorsAt(rel).has(anchor)) {
          problems.push(`${where}: link ${target} — no heading in ${rel} has the anchor #${anchor}`);
        }
      }
    });
  }
  return problems;
}

function codeFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = path.posix.join(rel, e.name);
      if (e.isDirectory()) {
        // Test fixtures read markers of their own, not settings.
        if (e.name !== "node_modules" && e.name !== "test-threads") walk(child);
      } else if (/\.(ts|tsx|js|mjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(child);
    }
  };
  for (const d of CODE_DIRS) walk(d);
  return [...out, ...CODE_FILES.filter((f) => fs.existsSync(path.join(root, f)))];
}

/** Every VIGIL_* setting the code reads: the keys of core/env.ts's schema and direct process.env reads. */
export function settingsInCode(root: string): Set<string> {
  const names = new Set<string>();
  const envFile = path.join(root, "core/env.ts");
  if (fs.existsSync(envFile)) {
    for (const m of fs.readFileSync(envFile, "utf8").matchAll(/^\s+(VIGIL_[A-Z0-9_]+)\s*:/gm)) names.add(m[1]!);
  }
  for (const f of codeFiles(root)) {
    const text = fs.readFileSync(path.join(root, f), "utf8");
    for (const m of text.matchAll(/(?:process\.)?env(?:\.|\[\s*["'])(VIGIL_[A-Z0-9_]+)\b(?!\s*=[^=])/g)) names.add(m[1]!);
  }
  return names;
}

/** The settings the reference lists: the first cell of each table row, one setting a row. */
export function settingsInDocs(root: string): string[] {
  const file = path.join(root, SETTINGS_DOC);
  if (!fs.existsSync(file)) return [];
  return [...fs.readFileSync(file, "utf8").matchAll(/^\|\s*`(VIGIL_[A-Z0-9_]+)`\s*\|/gm)].map((m) => m[1]!);
}

function checkSettings(root: string): string[] {
  const problems: string[] = [];
  const code = settingsInCode(root);
  const docs = settingsInDocs(root);
  const listed = new Set(docs);
  for (const name of [...code].sort()) if (!listed.has(name)) problems.push(`${SETTINGS_DOC}: ${name} is read in code but not listed`);
  for (const name of listed) if (!code.has(name)) problems.push(`${SETTINGS_DOC}: ${name} is listed but no code reads it`);
  const dupes = docs.filter((n, i) => docs.indexOf(n) !== i);
  for (const name of new Set(dupes)) problems.push(`${SETTINGS_DOC}: ${name} is listed more than once`);
  return problems;
}

/** What a command prints for --help, as a reader sees it (stdout and stderr, trailing space trimmed). */
export function helpOutput(root: string, script: string, args: readonly string[] = []): string {
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(root, script), ...args, "--help"], {
    cwd: process.cwd(),
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, DATABASE_URL: "", NODE_OPTIONS: "" },
  });
  // A parser's complaint about the flag itself ("Unknown option '--help'") is not part of the help text.
  const text = `${r.stdout ?? ""}${r.stderr ?? ""}`.replace(/^Unknown option '--help'.*\n/m, "");
  return normaliseHelp(text);
}

function normaliseHelp(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();
}

/** The text under the `## npm run <cmd>` heading, up to the next heading of its level or above. */
function commandSection(markdown: string, cmd: string): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^#{2}\s/.test(l) && l.includes(`npm run ${cmd}`));
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && /^#{1,2}\s/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/**
 * `<!-- help: scripts/x.ts -->` followed by a fenced block: that block is the command's --help text. Words after the
 * script name a subcommand (`<!-- help: scripts/vigil.ts runs logs -->` is `runs logs --help`).
 */
export function helpBlocks(markdown: string): { script: string; args: string[]; text: string }[] {
  const out: { script: string; args: string[]; text: string }[] = [];
  for (const m of markdown.matchAll(/<!--\s*help:\s*(\S+)((?:[ \t]+[\w-]+)*)\s*-->\s*\n(`{3,})[^\n]*\n([\s\S]*?)\n\3/g)) {
    out.push({ script: m[1]!, args: m[2]!.trim().split(/\s+/).filter(Boolean), text: normaliseHelp(m[4]!) });
  }
  return out;
}

function checkCli(root: string): string[] {
  const file = path.join(root, CLI_DOC);
  if (!fs.existsSync(file)) return [`${CLI_DOC} does not exist`];
  const markdown = fs.readFileSync(file, "utf8");
  const problems: string[] = [];
  const headings = proseLines(markdown).filter((l) => /^#{2,3}\s/.test(l));
  for (const cmd of CLI_COMMANDS) {
    if (!headings.some((h) => h.includes(`npm run ${cmd}`))) problems.push(`${CLI_DOC}: no section for npm run ${cmd}`);
    else if (helpBlocks(commandSection(markdown, cmd)).length === 0)
      problems.push(`${CLI_DOC}: the section of npm run ${cmd} quotes no --help`);
  }
  for (const block of helpBlocks(markdown)) {
    if (!fs.existsSync(path.join(root, block.script))) {
      problems.push(`${CLI_DOC}: help block names ${block.script}, which does not exist`);
      continue;
    }
    const printed = helpOutput(root, block.script, block.args);
    if (printed !== block.text) {
      problems.push(
        `${CLI_DOC}: the help text of ${[block.script, ...block.args].join(" ")} differs from what it prints:\n--- printed\n${printed}\n--- documented\n${block.text}`,
      );
    }
  }
  return problems;
}

/** The code of the blocks a page marks as runnable (```sh runnable), in order. */
export function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^(`{3,})(?:sh|bash)\s+runnable\s*\n([\s\S]*?)\n\1\s*$/gm)].map((m) => m[2]!);
}
