// vigil runs list | show | cancel | rerun | logs [--follow]
import { Command } from "commander";
import { isTerminal, RUN_STATES } from "../../core/runs/run-states";
import type { Operations } from "../../core/api-client/operations.gen";
import { collect, contextOf, positiveInt, requireUuid, resolveScheduleId, type CliContext } from "../cli-context";
import { CliError, EXIT } from "../exit-codes";
import { printJson, renderFields, renderTable, shortTime } from "../output";

type RunLog = Operations["getRunsById"]["answer"]["logs"][number];

const ms = (v: number | null | undefined) => (v === null || v === undefined ? null : v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`);

function logLine(l: RunLog): string {
  const fields = l.fields && typeof l.fields === "object" && Object.keys(l.fields).length ? ` ${JSON.stringify(l.fields)}` : "";
  return `${shortTime(l.at)} [${l.attempt}] ${l.level.padEnd(5)} ${l.message}${fields}\n`;
}

/** Polls the run, printing log lines not seen yet, until it ends. Returns its final state. */
async function followLogs(ctx: CliContext, id: string, intervalMs: number): Promise<string> {
  let lastId = -1;
  for (;;) {
    const trace = await ctx.client().call("getRunsById", { params: { id } });
    for (const l of trace.logs) {
      if (l.id <= lastId) continue;
      lastId = l.id;
      process.stdout.write(ctx.json ? `${JSON.stringify(l)}\n` : logLine(l));
    }
    if (isTerminal(trace.run.state)) return trace.run.state;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function runsCommand(): Command {
  const cmd = new Command("runs").description("list and inspect runs, cancel and re-run them, read their logs");

  cmd
    .command("list")
    .description("runs, newest planned first")
    .option("--schedule <schedule>", "only this schedule's runs (name or id)")
    .option("--state <state>", `only runs in these states (repeatable or comma-separated): ${RUN_STATES.join(", ")}`, collect)
    .option("--limit <n>", "at most this many (1..500)", positiveInt, 50)
    .option("--cursor <cursor>", "the next page (printed after a full page)")
    .action(async (o: { schedule?: string; state?: string[]; limit: number; cursor?: string }, command: Command) => {
      const ctx = contextOf(command);
      const scheduleId = o.schedule ? await resolveScheduleId(ctx, o.schedule) : undefined;
      const page = await ctx
        .client()
        .call("getRuns", { query: { scheduleId, state: o.state?.join(","), limit: o.limit, cursor: o.cursor } });
      if (ctx.json) return printJson(page);
      process.stdout.write(
        renderTable(page.runs, [
          { header: "id", value: (r) => r.id },
          { header: "schedule", value: (r) => r.scheduleName },
          { header: "kind", value: (r) => r.kind },
          { header: "state", value: (r) => r.state },
          { header: "planned", value: (r) => shortTime(r.plannedAt) },
          { header: "late", value: (r) => ms(r.latenessMs) },
          { header: "took", value: (r) => ms(r.durationMs) },
          { header: "attempt", value: (r) => `${r.attempt}/${r.maxAttempts}` },
        ]),
      );
      if (page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
    });

  cmd
    .command("show")
    .description("one run: its state, timings, attempts and events")
    .argument("<run-id>", "the run's id")
    .action(async (id: string, _o: unknown, command: Command) => {
      const ctx = contextOf(command);
      const trace = await ctx.client().call("getRunsById", { params: { id: requireUuid("run id", id) } });
      if (ctx.json) return printJson(trace);
      const r = trace.run;
      process.stdout.write(
        renderFields([
          ["id", r.id],
          ["schedule", `${r.scheduleName} (${r.scheduleId})`],
          ["kind", r.kind],
          ["state", r.state],
          ["planned", shortTime(r.timings.plannedAt)],
          ["started", shortTime(r.timings.startedAt)],
          ["finished", shortTime(r.timings.finishedAt)],
          ["late", ms(r.timings.latenessMs)],
          ["took", ms(r.timings.durationMs)],
          ["attempt", `${r.attempt}/${r.maxAttempts}`],
          ["worker", r.workerId],
          ["error", r.error],
        ]),
      );
      if (trace.attempts.length) {
        process.stdout.write("\nattempts\n");
        process.stdout.write(
          renderTable(trace.attempts, [
            { header: "#", value: (a) => a.number },
            { header: "state", value: (a) => a.state },
            { header: "started", value: (a) => shortTime(a.startedAt) },
            { header: "finished", value: (a) => shortTime(a.finishedAt) },
            { header: "error", value: (a) => a.error },
          ]),
        );
      }
      process.stdout.write("\nevents\n");
      process.stdout.write(
        renderTable(trace.events, [
          { header: "at", value: (e) => shortTime(e.at) },
          { header: "type", value: (e) => e.type },
          { header: "message", value: (e) => e.message },
        ]),
      );
    });

  cmd
    .command("cancel")
    .description("cancel a queued, running or zombie run")
    .argument("<run-id>", "the run's id")
    .option("--reason <text>", "why (recorded on the run and in the audit trail)", "")
    .action(async (id: string, o: { reason: string }, command: Command) => {
      const ctx = contextOf(command);
      const r = await ctx.client().call("postRunsByIdCancel", { params: { id: requireUuid("run id", id) }, body: { reason: o.reason } });
      if (ctx.json) return printJson(r);
      process.stdout.write(
        r.outcome === "cancelled"
          ? `cancelled: run ${r.runId}\n`
          : `cancel requested: its worker was told (state ${r.state}; follow with vigil runs show)\n`,
      );
    });

  cmd
    .command("rerun")
    .description("re-run a run that ended badly, as the next attempt of the same occurrence (a preview unless --yes)")
    .argument("<run-id>", "the run's id")
    .option("--reason <text>", "why (required with --yes; recorded in the audit trail)")
    .option("--yes", "re-run it (without it: what the re-run would be, changing nothing)")
    .action(async (id: string, o: { reason?: string; yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      requireUuid("run id", id);
      if (!o.yes) {
        const p = await ctx.client().call("getRunsByIdRerun", { params: { id } });
        if (ctx.json) return printJson(p);
        const refusal = p.refusal as { message?: string } | null | undefined;
        process.stdout.write(
          refusal
            ? `cannot re-run: ${refusal.message ?? JSON.stringify(refusal)}\n`
            : `preview: re-running run ${p.runId} (${p.state}) makes attempt ${p.nextAttempt}; ${p.onceEffects} once-effect(s) already recorded will not repeat.\nRe-run with --yes --reason "…".\n`,
        );
        if (refusal) throw new CliError(EXIT.failure, "the run cannot be re-run");
        return;
      }
      if (!o.reason?.trim()) throw new CliError(EXIT.usage, "--reason is required with --yes");
      const r = await ctx.client().call("postRunsByIdRerun", { params: { id }, body: { reason: o.reason } });
      if (ctx.json) return printJson(r);
      process.stdout.write(`re-run: run ${r.runId} attempt ${r.attempt} (${r.state})\n`);
    });

  cmd
    .command("logs")
    .description("a run's log lines (the newest 2000); --follow prints new ones until the run ends")
    .argument("<run-id>", "the run's id")
    .option("-f, --follow", "keep polling and print new lines until the run ends")
    .option("--interval <ms>", "how often --follow polls", positiveInt, 1000)
    .action(async (id: string, o: { follow?: boolean; interval: number }, command: Command) => {
      const ctx = contextOf(command);
      requireUuid("run id", id);
      if (o.follow) {
        const state = await followLogs(ctx, id, o.interval);
        process.stderr.write(`run ${id} ended: ${state}\n`);
        return;
      }
      const trace = await ctx.client().call("getRunsById", { params: { id } });
      if (ctx.json) return printJson({ logs: trace.logs, logsTruncated: trace.logsTruncated });
      for (const l of trace.logs) process.stdout.write(logLine(l));
      if (trace.logsTruncated) process.stderr.write("(older lines left out: only the newest 2000 are kept in the trace)\n");
    });

  return cmd;
}
