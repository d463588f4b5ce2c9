// vigil schedules list | show | pause | resume | trigger | backfill
import { Command, Option } from "commander";
import { collect, contextOf, positiveInt, resolveScheduleId } from "../cli-context";
import { CliError, EXIT } from "../exit-codes";
import { printJson, renderFields, renderTable, shortTime } from "../output";

interface ActionAnswer {
  dryRun: boolean;
  count: number;
  plannedAt: string[];
}

function actionLines(a: ActionAnswer, done: string, extra: string[] = []): string {
  const lines = [
    a.dryRun ? `dry run: ${done} would enqueue ${a.count} run(s); nothing changed.` : `${done}: ${a.count} run(s) enqueued.`,
    ...extra,
  ];
  if (a.plannedAt.length)
    lines.push(`  planned at: ${a.plannedAt.slice(0, 10).map(shortTime).join(", ")}${a.plannedAt.length > 10 ? " …" : ""}`);
  return `${lines.join("\n")}\n`;
}

export function schedulesCommand(): Command {
  const cmd = new Command("schedules").description("list, inspect, pause, resume, trigger and backfill schedules");

  cmd
    .command("list")
    .description("list schedules with their next fire and last run")
    .option("--tag <tag>", "only schedules carrying this tag (repeatable: every one of them)", collect)
    .option("-q, --query <text>", "part of the name, handler or description")
    .option("--handler <name>", "only schedules of this handler")
    .option("--limit <n>", "at most this many (1..500)", positiveInt, 100)
    .action(async (o: { tag?: string[]; query?: string; handler?: string; limit: number }, command: Command) => {
      const ctx = contextOf(command);
      const page = await ctx
        .client()
        .call("getSchedules", { query: { tag: o.tag?.join(","), q: o.query, handler: o.handler, limit: o.limit } });
      if (ctx.json) return printJson(page);
      process.stdout.write(
        renderTable(page.schedules, [
          { header: "name", value: (s) => s.name },
          { header: "handler", value: (s) => s.handler },
          { header: "state", value: (s) => (s.paused ? "paused" : "active") },
          { header: "next fire", value: (s) => shortTime(s.nextFireAt) },
          { header: "last run", value: (s) => s.lastRun?.state },
          { header: "trigger", value: (s) => s.triggerDescription },
          { header: "id", value: (s) => s.id },
        ]),
      );
      if (page.total > page.schedules.length) process.stdout.write(`(${page.schedules.length} of ${page.total}; --limit for more)\n`);
    });

  cmd
    .command("show")
    .description("one schedule's settings and state")
    .argument("<schedule>", "the schedule's name or id")
    .action(async (ref: string, _o: unknown, command: Command) => {
      const ctx = contextOf(command);
      const { schedule: s } = await ctx.client().call("getSchedulesById", { params: { id: await resolveScheduleId(ctx, ref) } });
      if (ctx.json) return printJson({ schedule: s });
      process.stdout.write(
        renderFields([
          ["name", s.name],
          ["id", s.id],
          ["handler", s.handler],
          ["trigger", s.triggerDescription],
          ["timezone", s.timezone],
          [
            "state",
            s.paused
              ? `paused by ${s.paused.by ?? "?"} since ${shortTime(s.paused.at)}${s.paused.reason ? ` (${s.paused.reason})` : ""}`
              : "active",
          ],
          ["next fire", shortTime(s.nextFireAt)],
          ["last run", s.lastRun?.state],
          ["overlap", s.overlapPolicy],
          ["misfire", s.misfirePolicy],
          ["timeout", `${String(s.timeoutSeconds)} s`],
          ["retries", `${String(s.retryMaxAttempts)} attempt(s)`],
          ["runs after", runsAfterText(s)],
          ["followed by", namesText((s as { followedBy?: unknown }).followedBy)],
          ["revision", s.revision],
          ["description", s.description],
        ]),
      );
    });

  cmd
    .command("pause")
    .description("pause a schedule: its fires are recorded paused until it is resumed")
    .argument("<schedule>", "the schedule's name or id")
    .requiredOption("--reason <text>", "why (recorded in the audit trail)")
    .option("--until <iso>", "resume automatically at this time (ISO 8601 with an offset)")
    .option("--dry-run", "say what would happen, change nothing")
    .action(async (ref: string, o: { reason: string; until?: string; dryRun?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const id = await resolveScheduleId(ctx, ref);
      const r = await ctx
        .client()
        .call("postSchedulesByIdPause", { params: { id }, body: { reason: o.reason, until: o.until, dryRun: o.dryRun === true } });
      if (ctx.json) return printJson(r);
      process.stdout.write(
        `${r.dryRun ? "dry run: would pause" : "paused"} ${ref}; ${r.held} not-started run(s) held${r.pausedUntil ? `, until ${shortTime(r.pausedUntil)}` : ""}.\n`,
      );
    });

  cmd
    .command("resume")
    .description("resume a paused schedule; its misfire policy decides what of the pause runs now")
    .argument("<schedule>", "the schedule's name or id")
    .option("--dry-run", "say what a resume would enqueue, change nothing")
    .action(async (ref: string, o: { dryRun?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const id = await resolveScheduleId(ctx, ref);
      const r = await ctx.client().call("postSchedulesByIdResume", { params: { id }, body: { dryRun: o.dryRun === true } });
      if (ctx.json) return printJson(r);
      process.stdout.write(
        actionLines(r, `resumed ${ref}`, [`  misfire policy ${r.misfirePolicy}: ${r.recordedPaused} fire(s) of the pause recorded paused`]),
      );
    });

  cmd
    .command("trigger")
    .description("run a schedule now as a manual run (also while paused)")
    .argument("<schedule>", "the schedule's name or id")
    .requiredOption("--reason <text>", "why (recorded on the run and in the audit trail)")
    .option("--payload <json>", "this run's payload instead of the schedule's (a JSON object)")
    .option("--idempotency-key <key>", "a retried trigger with the same key returns the first run instead of starting another")
    .option("--dry-run", "check it, start nothing")
    .action(async (ref: string, o: { reason: string; payload?: string; idempotencyKey?: string; dryRun?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const id = await resolveScheduleId(ctx, ref);
      let payload: Record<string, unknown> | undefined;
      if (o.payload !== undefined) payload = parsePayload(o.payload);
      const r = await ctx.client().call("postSchedulesByIdTrigger", {
        params: { id },
        body: { reason: o.reason, payload, dryRun: o.dryRun === true },
        headers: o.idempotencyKey ? { "idempotency-key": o.idempotencyKey } : {},
      });
      if (ctx.json) return printJson(r);
      if (r.dryRun) process.stdout.write(`dry run: would start a manual run of ${ref}; nothing started.\n`);
      else process.stdout.write(`${r.replayed ? "already triggered with this key: run" : "triggered: run"} ${r.runId}\n`);
    });

  cmd
    .command("backfill")
    .description("run the fires of a past range that did not run (a dry run unless --yes)")
    .argument("<schedule>", "the schedule's name or id")
    .requiredOption("--from <iso>", "start of the range (ISO 8601 with an offset)")
    .requiredOption("--to <iso>", "end of the range, not in the future")
    .option("--reason <text>", "why (recorded in the audit trail)")
    .addOption(new Option("--yes", "enqueue the runs (without it: a dry run that changes nothing)"))
    .action(async (ref: string, o: { from: string; to: string; reason?: string; yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const id = await resolveScheduleId(ctx, ref);
      const r = await ctx.client().call("postSchedulesByIdBackfill", {
        params: { id },
        body: { from: o.from, to: o.to, reason: o.reason, dryRun: o.yes !== true },
      });
      if (ctx.json) return printJson(r);
      process.stdout.write(
        actionLines(r, `backfill of ${ref}`, [`  ${r.fires} fire(s) in the range, ${r.alreadyCovered} already ran or pending`]) +
          (r.dryRun && r.count ? "Apply with --yes.\n" : ""),
      );
    });

  return cmd;
}

function parsePayload(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, "--payload must be JSON");
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new CliError(EXIT.usage, "--payload must be a JSON object");
  return v as Record<string, unknown>;
}

/** "ledger-close (succeeded, same_time); export (finished, same_day Europe/Berlin), waits up to 3600 s" or undefined. */
function runsAfterText(s: object): string | undefined {
  const v = s as {
    after?: { name: string; condition: string; mapping: string; mappingTimezone?: string | null }[];
    waitDeadlineSeconds?: number;
  };
  if (!Array.isArray(v.after) || v.after.length === 0) return undefined;
  const links = v.after.map((l) => `${l.name} (${l.condition}, ${l.mapping}${l.mappingTimezone ? ` ${l.mappingTimezone}` : ""})`);
  return `${links.join("; ")}, waits up to ${String(v.waitDeadlineSeconds ?? "?")} s`;
}

function namesText(list: unknown): string | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return (list as { name: string }[]).map((f) => f.name).join(", ");
}
