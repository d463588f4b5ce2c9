// Bulk actions on a filtered runs list: cancel the queued/running runs of a schedule, or re-run the failed runs
// of a time range. A dry run counts what would be acted on; at most MAX_BULK_RUNS per action (more is refused,
// so nobody cancels 40,000 runs with one click). Each run is acted on in its own transaction through the same
// code as the single action (cancelRun / rerunRun: one audit row and one trace event each), so one run that
// cannot be acted on (it ended meanwhile, it succeeded) is reported per item and does not undo the others;
// one more audit row records the bulk action itself with every item's outcome.
import { narrowTeams, visibleTeamIds } from "../../teams/team-access";
import crypto from "node:crypto";
import type { PgBoss } from "pg-boss";
import { z } from "zod";
import type { Actor } from "../../auth/roles";
import { recordAudit } from "../../audit/record-audit";
import { getPool, withTransaction, type Queryable } from "../../db/pool";
import { DomainError, ValidationError } from "../../errors";
import { cancelRun } from "./cancel-run";
import { rerunRunInTransaction } from "./rerun-run";
import { CANCELLABLE_STATES, RERUNNABLE_STATES } from "../run-states";

export const MAX_BULK_RUNS = 500;

const isoDate = (name: string) =>
  z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date-time with an offset` }).transform((s) => new Date(s));

export const bulkRunActionSchema = z
  .strictObject({
    action: z.enum(["cancel", "rerun"], { error: "action must be cancel or rerun" }),
    /** Required unless dryRun (a count needs no reason). */
    reason: z.string({ error: "Say why (reason)" }).trim().max(500, { error: "reason must be at most 500 characters" }).optional(),
    dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
    /** Which runs: a filter like the runs list's ... */
    scheduleId: z.uuid({ error: "scheduleId must be a schedule id (UUID)" }).optional(),
    states: z.array(z.string()).min(1, { error: "states must name at least one state" }).optional(),
    from: isoDate("from").optional(),
    to: isoDate("to").optional(),
    /** Only one of the caller's teams (the console's team switcher); another team's id matches no run. */
    team: z.uuid({ error: "team must be a team id (UUID)" }).optional(),
    /** ... or the exact runs (e.g. the ids a dry run returned). Each is checked when acted on. */
    runIds: z
      .array(z.uuid({ error: "runIds must be run ids (UUIDs)" }))
      .min(1)
      .max(MAX_BULK_RUNS, { error: `at most ${MAX_BULK_RUNS} runIds` })
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.dryRun && !v.reason)
      ctx.addIssue({ code: "custom", path: ["reason"], message: "Say why (reason): it is recorded for every run and for the bulk action" });
    if (v.runIds) return;
    const allowed: readonly string[] = v.action === "cancel" ? CANCELLABLE_STATES : RERUNNABLE_STATES;
    for (const s of v.states ?? []) {
      if (!allowed.includes(s))
        ctx.addIssue({ code: "custom", path: ["states"], message: `${v.action} applies to ${allowed.join(", ")} runs, not ${s}` });
    }
    if (v.action === "cancel" && !v.scheduleId)
      ctx.addIssue({ code: "custom", path: ["scheduleId"], message: "Bulk cancel works on one schedule: give scheduleId" });
    if (v.action === "rerun" && (!v.from || !v.to)) {
      ctx.addIssue({ code: "custom", path: [v.from ? "to" : "from"], message: "Bulk re-run works on a time range: give from and to" });
    }
    if (v.from && v.to && v.from.getTime() >= v.to.getTime())
      ctx.addIssue({ code: "custom", path: ["to"], message: "to must be after from" });
  });

export type BulkRunActionInput = z.output<typeof bulkRunActionSchema>;

export type BulkItemResult =
  { runId: string; ok: true; state: string; outcome?: string } | { runId: string; ok: false; error: { code: string; message: string } };

export interface BulkRunActionResult {
  action: "cancel" | "rerun";
  dryRun: boolean;
  /** Runs matched (dry run) or acted on. */
  count: number;
  runIds: string[];
  bulkId: string | null;
  succeeded: number;
  failed: number;
  items: BulkItemResult[];
}

const DEFAULT_STATES = { cancel: ["queued", "running", "retrying"], rerun: ["failed"] } as const;

/** Only runs of the schedules of the teams where the actor is an operator (others do not exist for it). */
const IN_TEAMS = (p: string) =>
  `(${p}::uuid[] IS NULL OR schedule_id IN (SELECT s.id FROM schedules s WHERE s.team_id = ANY(${p}::uuid[])))`;

async function selectRuns(db: Queryable, v: z.output<typeof bulkRunActionSchema>, teamIds: string[] | null): Promise<string[]> {
  if (v.runIds) {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM runs WHERE id = ANY($1::uuid[]) AND ${IN_TEAMS("$2")} ORDER BY planned_at, id`,
      [v.runIds, teamIds],
    );
    return rows.map((r) => r.id);
  }
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM runs
      WHERE state = ANY($1::text[])
        AND ($2::uuid IS NULL OR schedule_id = $2::uuid)
        AND ($3::timestamptz IS NULL OR planned_at >= $3::timestamptz)
        AND ($4::timestamptz IS NULL OR planned_at < $4::timestamptz)
        AND ${IN_TEAMS("$6")}
      ORDER BY planned_at, id
      LIMIT $5`,
    [
      v.states ?? DEFAULT_STATES[v.action],
      v.scheduleId ?? null,
      v.from?.toISOString() ?? null,
      v.to?.toISOString() ?? null,
      MAX_BULK_RUNS + 1,
      teamIds,
    ],
  );
  return rows.map((r) => r.id);
}

export async function bulkRunAction(
  v: BulkRunActionInput,
  actor: Actor,
  opts: { boss: PgBoss | null; db?: import("pg").Pool },
): Promise<BulkRunActionResult> {
  const pool = opts.db ?? getPool();
  const ids = await selectRuns(pool, v, narrowTeams(visibleTeamIds(actor, "operator"), v.team));
  if (ids.length > MAX_BULK_RUNS) {
    throw new ValidationError(
      `More than ${MAX_BULK_RUNS} runs match; a bulk action takes at most ${MAX_BULK_RUNS}. Narrow the time range or the states and do it in parts.`,
      { _: `more than ${MAX_BULK_RUNS} runs match` },
      "too_many_runs",
    );
  }
  const base = { action: v.action, runIds: ids, count: ids.length };
  if (v.dryRun) return { ...base, dryRun: true, bulkId: null, succeeded: 0, failed: 0, items: [] };
  if (v.action === "rerun" && !opts.boss) throw new Error("bulk re-run needs a pg-boss client");

  const bulkId = crypto.randomUUID();
  const given = v.reason!;
  const reason = `${given} (bulk ${v.action} ${bulkId.slice(0, 8)})`;
  const items: BulkItemResult[] = [];
  for (const runId of ids) {
    try {
      if (v.action === "cancel") {
        const r = await cancelRun(runId, actor, reason, { boss: opts.boss, db: pool });
        items.push({ runId, ok: true, state: r.state, outcome: r.outcome });
      } else {
        const r = await withTransaction((tx) => rerunRunInTransaction(tx, opts.boss!, runId, actor, given, { bulkId }), pool);
        items.push({ runId, ok: true, state: r.state });
      }
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      items.push({ runId, ok: false, error: { code: err.code, message: err.message } });
    }
  }
  const succeeded = items.filter((i) => i.ok).length;
  await recordAudit(pool, {
    actor,
    action: v.action === "cancel" ? "runs.bulk_cancel" : "runs.bulk_rerun",
    targetType: v.scheduleId ? "schedule" : "runs",
    targetId: v.scheduleId ?? null,
    after: {
      bulkId,
      filter: v.runIds
        ? { runIds: v.runIds }
        : { scheduleId: v.scheduleId ?? null, states: v.states ?? DEFAULT_STATES[v.action], from: v.from ?? null, to: v.to ?? null },
      count: ids.length,
      succeeded,
      failed: items.length - succeeded,
      items: items.map((i) => (i.ok ? { runId: i.runId, ok: true } : { runId: i.runId, ok: false, code: i.error.code })),
    },
    reason: given,
  });
  return { ...base, dryRun: false, bulkId, succeeded, failed: items.length - succeeded, items };
}
