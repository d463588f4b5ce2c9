// The runs list: filter by state, schedule and planned time, newest first, with keyset pagination (a cursor
// naming the last row, so pages never skip or repeat rows while new runs arrive). Without a state filter the
// runs that need attention now — running and zombie — come first, then everything else; and future
// occurrences (planned ahead, shown on the timeline) are left out unless `to` or a state asks for them.
import { type Queryable } from "../../db/pool";
import { BadRequestError } from "../../errors";
import { lateSql, type LatenessClass } from "../lateness";
import type { RunRow } from "../run-row";

export interface RunListItem {
  id: string;
  scheduleId: string;
  scheduleName: string;
  /** The schedule's team (core/teams/): the console's buttons on the row follow the caller's role there. */
  teamId: string;
  kind: string;
  state: string;
  waitReason: string | null;
  concurrencyGroup: string | null;
  handler: string;
  plannedAt: Date;
  dueAt: Date;
  enqueuedAt: Date | null;
  startedAt: Date | null;
  heartbeatAt: Date | null;
  finishedAt: Date | null;
  nextAttemptAt: Date | null;
  latenessMs: number | null;
  /** The schedule's start jitter window: whether the run is late depends on it (lateness.ts). */
  startJitterMs: number;
  durationMs: number | null;
  attempt: number;
  maxAttempts: number;
  /** How often an operator re-ran this occurrence. */
  reruns: number;
  workerId: string | null;
  records: number | null;
  error: string | null;
  idempotencyKey: string;
  cancelRequestedAt: Date | null;
  cancelRequestedBy: string | null;
  cancelReason: string | null;
  /** The newest event's type while a cancel is in flight (null otherwise): the row shows the stage it reached. */
  lastEventType: string | null;
}

export interface RunFilter {
  states?: string[];
  scheduleId?: string;
  from?: Date;
  to?: Date;
  /** Only runs that started late, or only those that started on time (lateness.ts's rule). */
  lateness?: LatenessClass;
  /** Only runs of schedules having every one of these tags. */
  tags?: string[];
  /** Only runs of these teams' schedules (core/teams/team-access.ts visibleTeamIds); null or absent: every team. */
  teamIds?: readonly string[] | null;
  cursor?: string;
  limit?: number;
}

export interface RunsPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

const ATTENTION = ["running", "zombie"];
interface Cursor {
  phase: 0 | 1;
  plannedAt: string;
  id: string;
}

export async function listRuns(db: Queryable, filter: RunFilter): Promise<RunsPage> {
  const limit = Math.max(1, Math.min(filter.limit ?? 50, 500));
  const cursor = filter.cursor ? decodeCursor(filter.cursor) : null;
  const phased = !filter.states || filter.states.length === 0;
  // Phase 0: running and zombie; phase 1: the rest. With a state filter, one phase (1) holds everything.
  const phases: (0 | 1)[] = phased ? [0, 1] : [1];
  const upTo = filter.to ?? (phased ? "now" : null);
  const out: RunListItem[] = [];
  let next: Cursor | null = null;
  for (const phase of phases) {
    if (cursor && phase < cursor.phase) continue;
    const keyset = cursor && cursor.phase === phase ? cursor : null;
    // The phases are separate statements: a run that finished between them is in both. Keep its first row.
    const seen = new Set(out.map((r) => r.id));
    // Phase 0 is asked as a state filter (one statement per attention state): `state = ANY(running, zombie)` has no
    // index of its own — each state is in a different partial one — and at 10 M runs it scanned the table (3.6 s).
    const q: PhaseQuery =
      phased && phase === 0
        ? { ...filter, states: ATTENTION, phase, phased: false, upTo, keyset, limit: limit - out.length + 1 }
        : { ...filter, phase, phased, upTo, keyset, limit: limit - out.length + 1 };
    const rows = (await queryPhaseByState(db, q)).filter((r) => !seen.has(r.id));
    const room = limit - out.length;
    out.push(...rows.slice(0, room));
    if (rows.length > room) {
      const last = out.at(-1)!;
      next = { phase, plannedAt: last.plannedAt.toISOString(), id: last.id };
      break;
    }
  }
  return { runs: out, nextCursor: next ? encodeCursor(next) : null };
}

/** A row of queryPhase: the run's columns RunListItem shows, with its schedule's name and jitter. */
interface RunListRow extends Omit<
  RunRow,
  "payload" | "timeout_seconds" | "grace_seconds" | "wakes" | "result" | "created_at" | "updated_at"
> {
  schedule_name: string;
  team_id: string;
  start_jitter_ms: number;
  last_event_type: string | null;
}

type PhaseQuery = RunFilter & {
  phase: 0 | 1;
  phased: boolean;
  upTo: Date | "now" | null;
  keyset: Cursor | null;
  limit: number;
  /** One state (`r.state = $13`): unlike `= ANY(…)`, it lets Postgres read runs_state_planned_idx in order. */
  state?: string;
};

/**
 * With a state filter, one statement per state, merged newest first: the finished states other than `succeeded`
 * have their own index by planned time (runs_state_planned_idx, partial, so a run that goes planned → queued →
 * running → succeeded never enters it). Postgres reads it in order only for `state = one value` known when it plans
 * the statement, so each statement reads at most one page of its state; `= ANY(…)` read the planned-time index back
 * until it had met a page of them (49,000 rows for `failed` at 2 M runs).
 */
async function queryPhaseByState(db: Queryable, q: PhaseQuery): Promise<RunListItem[]> {
  const states = [...new Set(q.states ?? [])];
  if (q.phased || states.length === 0) return queryPhase(db, q);
  if (states.length === 1) return queryPhase(db, { ...q, states: undefined, state: states[0] });
  const pages = await Promise.all(states.map((state) => queryPhase(db, { ...q, states: undefined, state })));
  return pages
    .flat()
    .sort((a, b) => b.plannedAt.getTime() - a.plannedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, q.limit);
}

async function queryPhase(db: Queryable, q: PhaseQuery): Promise<RunListItem[]> {
  const { rows } = await db.query<RunListRow>(
    `SELECT r.id, r.schedule_id, s.name AS schedule_name, s.team_id, r.kind, r.state, r.wait_reason, r.concurrency_group, r.handler, r.planned_at, r.due_at,
            r.enqueued_at, r.started_at, r.heartbeat_at, r.finished_at, r.next_attempt_at, r.lateness_ms, s.start_jitter_ms, r.duration_ms,
            r.attempt, r.max_attempts, r.reruns, r.worker_id, r.records, r.error, r.idempotency_key, r.cancel_requested_at,
            r.cancel_requested_by, r.cancel_reason,
            CASE WHEN r.cancel_requested_at IS NOT NULL THEN
              (SELECT e.type FROM run_events e WHERE e.run_id = r.id ORDER BY e.id DESC LIMIT 1) END AS last_event_type
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      WHERE ($1::text[] IS NULL OR r.state = ANY($1::text[]))
        AND (NOT $2 OR (CASE WHEN $3 = 0 THEN r.state = ANY($4::text[]) ELSE r.state <> ALL($4::text[]) END))
        AND ($5::uuid IS NULL OR r.schedule_id = $5::uuid)
        AND ($6::timestamptz IS NULL OR r.planned_at >= $6::timestamptz)
        AND ($7::text IS NULL OR r.planned_at <= CASE WHEN $7 = 'now' THEN clock_timestamp() ELSE $7::timestamptz END)
        AND ($8::timestamptz IS NULL OR (r.planned_at, r.id) < ($8::timestamptz, $9::uuid))
        AND ($11::text IS NULL OR ${lateSql("r.lateness_ms", "s.start_jitter_ms")} = ($11 = 'late'))
        AND ($12::text[] IS NULL OR s.tags @> $12::text[])
        AND ($13::text IS NULL OR r.state = $13::text)
        AND ($14::uuid[] IS NULL OR s.team_id = ANY($14::uuid[]))
      ORDER BY r.planned_at DESC, r.id DESC
      LIMIT $10`,
    [
      q.states?.length ? q.states : null,
      q.phased,
      q.phase,
      ATTENTION,
      q.scheduleId ?? null,
      q.from?.toISOString() ?? null,
      q.upTo === null ? null : q.upTo === "now" ? "now" : q.upTo.toISOString(),
      q.keyset?.plannedAt ?? null,
      q.keyset?.id ?? null,
      q.limit,
      q.lateness ?? null,
      q.tags?.length ? q.tags : null,
      q.state ?? null,
      q.teamIds ? [...q.teamIds] : null,
    ],
  );
  return rows.map((r) => ({
    id: r.id,
    scheduleId: r.schedule_id,
    scheduleName: r.schedule_name,
    teamId: r.team_id,
    kind: r.kind,
    state: r.state,
    waitReason: r.wait_reason,
    concurrencyGroup: r.concurrency_group,
    handler: r.handler,
    plannedAt: r.planned_at,
    dueAt: r.due_at,
    enqueuedAt: r.enqueued_at,
    startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at,
    finishedAt: r.finished_at,
    nextAttemptAt: r.next_attempt_at,
    latenessMs: r.lateness_ms,
    startJitterMs: r.start_jitter_ms,
    durationMs: r.duration_ms,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    reruns: r.reruns,
    workerId: r.worker_id,
    records: r.records,
    error: r.error,
    idempotencyKey: r.idempotency_key,
    cancelRequestedAt: r.cancel_requested_at,
    cancelRequestedBy: r.cancel_requested_by,
    cancelReason: r.cancel_reason,
    lastEventType: r.last_event_type,
  }));
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.phase, c.plannedAt, c.id])).toString("base64url");
}

function decodeCursor(text: string): Cursor {
  try {
    const [phase, plannedAt, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as [number, string, string];
    if ((phase !== 0 && phase !== 1) || Number.isNaN(Date.parse(plannedAt)) || !/^[0-9a-f-]{36}$/i.test(id)) throw new Error("shape");
    return { phase, plannedAt, id };
  } catch {
    throw new BadRequestError("The cursor is not one this API returned; start again without it.", "invalid_cursor", {
      cursor: "not a cursor from a previous page",
    });
  }
}
