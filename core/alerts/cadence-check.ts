// The cadence check: the ledger promises a row for every fire up to a schedule's planning cursor (planned_through),
// and the plan (core/schedules/fire-plan.ts) says which fires those are. This compares the two over a recent window
// and alerts per schedule on a forecast fire without a row (the ledger should make that impossible) or on rows at
// instants the plan does not fire (a cadence that drifted), naming the instants; it resolves when they match again.
//
// Which fires need a row: the ones that run, and the ones the ledger records although they do not run (excluded by a
// calendar, held by a pause). Rows count by the fire they belong to (nominal_at), so a fire a calendar moved across the
// window's edge is neither a gap nor drift; a row fits if its fire or its instant is a forecast fire's.
// Checked per schedule from the latest of the window's start, its creation and its last edit plus the plan-ahead time
// (rows planned before an edit follow the old trigger until the replan), up to the earlier of the window's end and
// its planning cursor (a planner behind is the planner-lag alert's business, not a gap). Paused schedules are left
// as they are. Cost: one read of the schedules, one of their calendars, one of the rows' instants in the window,
// and planFires once per distinct plan.
import type { Queryable } from "../db/pool";
import { loadScheduleCalendars } from "../calendars/calendar-rules";
import { firePlanOf, planFires, type FireFate } from "../schedules/fire-plan";
import { SCHEDULE_COLUMNS, toSchedule, type ScheduleRow } from "../schedules/schedule-record";
import { planKey } from "../load/count-due-fires";
import type { ConditionResult } from "./condition-alert-rules";

export interface CadenceOptions {
  /** How far back the window reaches from its end. */
  windowMs: number;
  /** The window ends this long before now (rows of the last moments may still be being written). */
  marginMs: number;
  /** VIGIL_PLAN_AHEAD_SECONDS in ms: rows exist this far ahead, so an edit's old rows are gone this long after it. */
  planAheadMs: number;
}

export const DEFAULT_CADENCE: CadenceOptions = { windowMs: 60 * 60_000, marginMs: 5 * 60_000, planAheadMs: 120_000 };

/** A schedule's forecast over its checked range: the fires that need a row, and every instant a row may fit. */
interface Expected {
  expected: { nominal: number; planned: number }[];
  fitting: Set<number>;
}

/** Fates the ledger records with a row. */
const RECORDED: ReadonlySet<FireFate> = new Set<FireFate>(["run", "excluded", "paused"]);
/** Instants named in a message / the alert's data at most. */
const NAMED = 10;

export async function evaluateCadence(db: Queryable, opts: CadenceOptions = DEFAULT_CADENCE): Promise<ConditionResult> {
  const { rows: nowRows } = await db.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  const untilMs = nowRows[0]!.now.getTime() - opts.marginMs;
  const fromMs = untilMs - opts.windowMs;
  const { rows } = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s
      WHERE s.deleted_at IS NULL AND s.planned_through > $1 AND s.created_at < $2`,
    [new Date(fromMs).toISOString(), new Date(untilMs).toISOString()],
  );
  const schedules = rows.map(toSchedule).filter((s) => !s.paused);
  const out: ConditionResult = { firing: [], clear: [] };
  if (schedules.length === 0) return out;
  const calendars = await loadScheduleCalendars(
    db,
    schedules.map((s) => s.id),
  );
  // The plans first: which nominal fires in each schedule's range need a row, and where (a calendar may move a fire
  // out of the window, or into it from before).
  const memo = new Map<string, Expected>();
  const checks: { s: (typeof schedules)[number]; from: number; until: number; fires: Expected }[] = [];
  const outside = new Set<number>();
  for (const s of schedules) {
    const from = Math.max(fromMs, s.createdAt.getTime(), s.updatedAt.getTime() + opts.planAheadMs);
    const until = Math.min(untilMs, s.plannedThrough!.getTime());
    if (until <= from) continue;
    const plan = firePlanOf(s, calendars.get(s.id) ?? []);
    // A cron or one-off plan does not depend on the creation time (count-due-fires.ts): share it.
    const shared = plan.trigger.kind === "interval" ? plan : { ...plan, createdAt: new Date(0) };
    const key = `${planKey(shared)}|${from}|${until}`;
    let fires = memo.get(key);
    if (!fires) {
      const planned = planFires(shared, { from: new Date(from), until: new Date(until) }).fires;
      fires = {
        expected: planned
          .filter((f) => RECORDED.has(f.fate))
          .map((f) => ({ nominal: f.nominalAt.getTime(), planned: f.plannedAt.getTime() })),
        fitting: new Set(planned.flatMap((f) => [f.plannedAt.getTime(), f.nominalAt.getTime()])),
      };
      memo.set(key, fires);
    }
    for (const f of fires.expected) if (f.planned <= fromMs || f.planned > untilMs) outside.add(f.planned);
    checks.push({ s, from, until, fires });
  }
  if (checks.length === 0) return out;
  // Rows by nominal instant (nominal_at; planned_at on rows written before it existed): the window's rows by their
  // planned instant (the index), plus the rows of forecast fires a calendar moved outside it.
  const { rows: recorded } = await db.query<{ schedule_id: string; nominal: string[] }>(
    `SELECT schedule_id, array_agg((extract(epoch FROM coalesce(nominal_at, planned_at)) * 1000)::bigint) AS nominal
       FROM runs
      WHERE kind = 'scheduled' AND schedule_id = ANY($3::uuid[]) AND idempotency_key NOT LIKE 'superseded:%'
        AND ((planned_at > $1 AND planned_at <= $2) OR planned_at = ANY($4::timestamptz[]))
      GROUP BY schedule_id`,
    [
      new Date(fromMs).toISOString(),
      new Date(untilMs).toISOString(),
      checks.map((c) => c.s.id),
      [...outside].map((t) => new Date(t).toISOString()),
    ],
  );
  const rowsOf = new Map(recorded.map((r) => [r.schedule_id, r.nominal.map(Number)]));

  for (const { s, from, until, fires } of checks) {
    const have = new Set((rowsOf.get(s.id) ?? []).filter((t) => t > from && t <= until));
    const missing = fires.expected.map((f) => f.nominal).filter((t) => !have.has(t));
    const unexpected = [...have].filter((t) => !fires.fitting.has(t)).sort((a, b) => a - b);
    const dedupeKey = `cadence:${s.id}`;
    if (missing.length === 0 && unexpected.length === 0) {
      out.clear.push({ dedupeKey, resolution: "The recorded fires match the forecast again." });
      continue;
    }
    const iso = (ts: number[]) => ts.slice(0, NAMED).map((t) => new Date(t).toISOString());
    const more = (ts: number[]) => (ts.length > NAMED ? ` and ${ts.length - NAMED} more` : "");
    const parts = [
      ...(missing.length > 0
        ? [`${missing.length} forecast fire${missing.length === 1 ? " has" : "s have"} no row (${iso(missing).join(", ")}${more(missing)})`]
        : []),
      ...(unexpected.length > 0
        ? [
            `${unexpected.length} row${unexpected.length === 1 ? " is" : "s are"} at an instant the plan does not fire (${iso(unexpected).join(", ")}${more(unexpected)})`,
          ]
        : []),
    ];
    out.firing.push({
      kind: "cadence",
      dedupeKey,
      severity: "critical",
      scheduleId: s.id,
      runId: null,
      message: `${s.name}: ${parts.join("; ")} between ${new Date(from).toISOString()} and ${new Date(until).toISOString()}`,
      data: {
        missing: iso(missing),
        missingCount: missing.length,
        unexpected: iso(unexpected),
        unexpectedCount: unexpected.length,
        expected: fires.expected.length,
        recorded: have.size,
        from: new Date(from).toISOString(),
        until: new Date(until).toISOString(),
      },
      causeAt: null,
      causes: 1,
    });
  }
  return out;
}
