// vigil export | apply: schedules as code (core/schedules/as-code/), through the console's API.
import fs from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import type { ApplyChange, ApplyResult } from "../../core/schedules/as-code/apply-schedules";
import { collect, contextOf } from "../cli-context";
import { CliError, EXIT } from "../exit-codes";
import { printJson } from "../output";

const show = (v: unknown) => (v === null || v === undefined ? "(default)" : JSON.stringify(v));

export function formatChange(c: ApplyChange): string[] {
  switch (c.op) {
    case "create":
      return [`+ create ${c.name}`];
    case "pause":
      return [`‖ pause  ${c.name} (enabled: false)`];
    case "delete":
      return [`- delete ${c.name} (managed, not in the file)`];
    case "change":
      return [
        `~ change ${c.name}${c.adopt ? " (taken over: now managed by this file)" : ""}`,
        ...c.fields.map((f) => `    ${f.field}: ${show(f.from)} → ${show(f.to)}`),
      ];
  }
}

export function formatApplyResult(r: ApplyResult): string {
  const lines = r.changes.flatMap(formatChange);
  if (r.changes.length === 0) lines.push("no changes: the schedules are as the file says");
  if (r.unchanged.length) lines.push(`  ${r.unchanged.length} unchanged`);
  if (r.leftPaused.length) lines.push(`  left paused (a file never resumes; resume in the console): ${r.leftPaused.join(", ")}`);
  if (r.notInDocument.length) lines.push(`  managed but not in the file, kept (--prune deletes them): ${r.notInDocument.join(", ")}`);
  lines.push(
    r.dryRun
      ? r.changes.length
        ? `dry run: nothing changed. Apply with --yes.`
        : "dry run: nothing changed."
      : `applied ${r.changes.length} change${r.changes.length === 1 ? "" : "s"} in one transaction.`,
  );
  return `${lines.join("\n")}\n`;
}

export function exportCommand(): Command {
  return new Command("export")
    .description("print the schedules as a document (YAML by default) that apply takes back")
    .addOption(new Option("--format <format>", "yaml or json").choices(["yaml", "json"]).default("yaml"))
    .option("--tag <tag>", "only schedules carrying this tag (repeatable: every one of them)", collect)
    .option("--name <name>", "only the schedule of this name (repeatable)", collect)
    .option("--out <file>", "write to this file instead of stdout")
    .action(async (o: { format: "yaml" | "json"; tag?: string[]; name?: string[]; out?: string }, command: Command) => {
      const ctx = contextOf(command);
      const text = await ctx
        .client()
        .call("getSchedulesExport", { query: { format: o.format, tag: o.tag?.join(","), name: o.name?.join(",") } });
      if (o.out) fs.writeFileSync(o.out, text);
      else process.stdout.write(text);
    });
}

export function applyCommand(): Command {
  return new Command("apply")
    .description("apply a schedules document: prints the diff; only with --yes is it applied (one transaction, each change audited)")
    .argument("<file>", "the schedules document (YAML or JSON)")
    .option("--dry-run", "print the diff only (the default)")
    .option("--yes", "apply the changes")
    .option("--prune", "delete managed schedules the file leaves out")
    .action(async (file: string, o: { dryRun?: boolean; yes?: boolean; prune?: boolean }, command: Command) => {
      if (o.yes && o.dryRun) throw new CliError(EXIT.usage, "--yes and --dry-run contradict each other");
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (err) {
        throw new CliError(EXIT.usage, `cannot read ${file}: ${(err as Error).message}`);
      }
      const ctx = contextOf(command);
      const r = await ctx.client().call("postSchedulesApply", {
        body: { document: text, dryRun: !o.yes, prune: o.prune ?? false, source: path.basename(file) },
      });
      if (ctx.json) return printJson(r);
      process.stdout.write(formatApplyResult(r as unknown as ApplyResult));
    });
}
