// Opens alerts, or refreshes the open one with the same dedupe key. The partial unique index
// alerts_open_dedupe_key (one open alert per key) makes a second raise an update, never a duplicate.
import type { Queryable } from "../db/pool";
import type { AlertCandidate, AlertChange } from "./alert-change";
import { toChange, type AlertChangeRow } from "./evaluate-run-rule";

/** Returns the alerts this call opened (not the ones it refreshed). */
export async function upsertAlerts(db: Queryable, candidates: AlertCandidate[]): Promise<AlertChange[]> {
  if (candidates.length === 0) return [];
  const rows = candidates.map((c) => ({
    kind: c.kind,
    schedule_id: c.scheduleId,
    run_id: c.runId,
    dedupe_key: c.dedupeKey,
    severity: c.severity,
    message: c.message,
    data: c.data,
    last_cause_at: c.causeAt?.toISOString() ?? null,
    causes: c.causes,
  }));
  const { rows: out } = await db.query<AlertChangeRow & { inserted: boolean }>(
    `INSERT INTO alerts AS a (kind, schedule_id, run_id, dedupe_key, severity, message, data, last_cause_at, occurrences)
     SELECT x.kind, x.schedule_id, x.run_id, x.dedupe_key, x.severity, x.message, x.data, x.last_cause_at, x.causes
       FROM jsonb_to_recordset($1::jsonb) AS x(kind text, schedule_id uuid, run_id uuid, dedupe_key text, severity text,
                                              message text, data jsonb, last_cause_at timestamptz, causes int)
     ON CONFLICT (dedupe_key) WHERE resolved_at IS NULL DO UPDATE SET
       last_seen_at = clock_timestamp(),
       message = EXCLUDED.message,
       data = EXCLUDED.data,
       severity = EXCLUDED.severity,
       run_id = coalesce(EXCLUDED.run_id, a.run_id),
       occurrences = a.occurrences + CASE WHEN EXCLUDED.last_cause_at > a.last_cause_at THEN EXCLUDED.occurrences ELSE 0 END,
       last_cause_at = greatest(a.last_cause_at, EXCLUDED.last_cause_at)
     RETURNING a.id, a.kind, a.dedupe_key, a.schedule_id, a.run_id, a.message, a.resolution, (a.xmax = 0) AS inserted`,
    [JSON.stringify(rows)],
  );
  return out.filter((r) => r.inserted).map(toChange);
}

/** Resolves the open alerts with these keys (conditions that cleared), each with its reason. */
export async function resolveAlertsByKey(db: Queryable, clear: { dedupeKey: string; resolution: string }[]): Promise<AlertChange[]> {
  if (clear.length === 0) return [];
  const { rows } = await db.query<AlertChangeRow>(
    `UPDATE alerts a SET resolved_at = clock_timestamp(), resolution = x.resolution
       FROM unnest($1::text[], $2::text[]) AS x(dedupe_key, resolution)
      WHERE a.dedupe_key = x.dedupe_key AND a.resolved_at IS NULL
     RETURNING a.id, a.kind, a.dedupe_key, a.schedule_id, a.run_id, a.message, a.resolution`,
    [clear.map((c) => c.dedupeKey), clear.map((c) => c.resolution)],
  );
  return rows.map(toChange);
}

/** Resolves open schedule alerts whose schedule is gone or no longer sets the expectation. */
export async function resolveUnconfiguredAlerts(
  db: Queryable,
  kind: string,
  prefix: string,
  configSql: string,
  params: unknown[] = [],
): Promise<AlertChange[]> {
  const { rows } = await db.query<AlertChangeRow>(
    `UPDATE alerts a SET resolved_at = clock_timestamp(), resolution = $3
      WHERE a.kind = $1 AND starts_with(a.dedupe_key, $2) AND a.resolved_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM schedules s WHERE s.id = a.schedule_id AND s.deleted_at IS NULL AND (${configSql}))
     RETURNING a.id, a.kind, a.dedupe_key, a.schedule_id, a.run_id, a.message, a.resolution`,
    [kind, prefix, "The schedule was deleted or no longer sets this expectation.", ...params],
  );
  return rows.map(toChange);
}
