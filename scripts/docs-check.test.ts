// The documentation check on this repository, and proof on a small fixture that it fails when a link, an anchor,
// a setting or a CLI flag goes missing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anchorsOf, checkDocs, runnableBlocks } from "./lib/docs-check";

// Pages other changes add; each is checked like any other as soon as it exists.
describe("the documentation of this repository", () => {
  it("has only resolving links and anchors, the settings the code reads, and the CLI help the commands print", () => {
    expect(checkDocs(process.cwd())).toEqual([]);
    // Each quoted --help (the vigil CLI has one per subcommand) is a process started under tsx.
  }, 600_000);

  it("marks runnable blocks in the tutorial", () => {
    expect(runnableBlocks(fs.readFileSync("docs/tutorial.md", "utf8")).length).toBeGreaterThan(0);
  });
});

describe("GitHub anchors", () => {
  it("drop punctuation and code marks, hyphenate spaces and number repeats", () => {
    const a = anchorsOf("# Vigil\n## What `npm start` restarts, and why?\n## Notes\n## Notes\n```\n# not a heading\n```\n");
    expect([...a]).toEqual(["vigil", "what-npm-start-restarts-and-why", "notes", "notes-1"]);
  });
});

describe("the check on a fixture", () => {
  let root = "";
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  function fixture(): void {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-docs-check-"));
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    write("README.md", "# Fixture\n\nSee [settings](docs/reference/settings.md#the-settings) and [the CLI](docs/reference/cli.md).\n");
    write("core/env.ts", "const envSchema = z.object({\n  VIGIL_ALPHA: int(1),\n  VIGIL_BETA: bool,\n});\n");
    write("scripts/tool.ts", 'const url = process.env.VIGIL_GAMMA;\nconsole.log("usage: tool [--fast] [--out FILE]");\n');
    write(
      "docs/reference/settings.md",
      "# Settings\n\n## The settings\n\n| name | default | meaning |\n|---|---|---|\n| `VIGIL_ALPHA` | `1` | a |\n| `VIGIL_BETA` | `false` | b |\n| `VIGIL_GAMMA` | unset | c |\n",
    );
    const help = "<!-- help: scripts/tool.ts -->\n```text\nusage: tool [--fast] [--out FILE]\n```\n";
    const sections = ["vigil", "audit-verify", "backup", "restore", "create-admin", "migrate", "worker"]
      .map((c) => `## npm run ${c}\n\n${help}`)
      .join("\n");
    write("docs/reference/cli.md", `# CLI\n\n${sections}`);
  }

  const edit = (rel: string, from: string, to: string) => {
    const file = path.join(root, rel);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain(from);
    fs.writeFileSync(file, text.replace(from, to));
  };

  it("passes on the intact fixture", () => {
    fixture();
    expect(checkDocs(root)).toEqual([]);
  });

  it("fails when a linked page is removed", () => {
    fixture();
    fs.rmSync(path.join(root, "docs/reference/cli.md"));
    expect(checkDocs(root).join("\n")).toContain("link docs/reference/cli.md — docs/reference/cli.md does not exist");
  });

  it("fails when a linked heading is renamed", () => {
    fixture();
    edit("docs/reference/settings.md", "## The settings", "## Settings by name");
    expect(checkDocs(root).join("\n")).toContain("no heading in docs/reference/settings.md has the anchor #the-settings");
  });

  it("fails when a setting read in code is removed from the reference, and when one listed is no longer read", () => {
    fixture();
    edit("docs/reference/settings.md", "| `VIGIL_GAMMA` | unset | c |\n", "");
    expect(checkDocs(root)).toEqual(["docs/reference/settings.md: VIGIL_GAMMA is read in code but not listed"]);
    edit("core/env.ts", "  VIGIL_BETA: bool,\n", "");
    expect(checkDocs(root)).toContain("docs/reference/settings.md: VIGIL_BETA is listed but no code reads it");
  });

  it("fails when a CLI flag is removed from the reference", () => {
    fixture();
    edit("docs/reference/cli.md", "usage: tool [--fast] [--out FILE]", "usage: tool [--out FILE]");
    expect(checkDocs(root).join("\n")).toContain("the help text of scripts/tool.ts differs from what it prints");
  });

  it("fails when a command has no section in the CLI reference", () => {
    fixture();
    edit("docs/reference/cli.md", "## npm run backup\n", "");
    expect(checkDocs(root)).toEqual(["docs/reference/cli.md: no section for npm run backup"]);
  });

  it("fails when a command's section quotes no --help", () => {
    fixture();
    edit("docs/reference/cli.md", "## npm run migrate\n\n<!-- help: scripts/tool.ts -->", "## npm run migrate\n\n<!-- no help -->");
    expect(checkDocs(root)).toEqual(["docs/reference/cli.md: the section of npm run migrate quotes no --help"]);
  });
});
