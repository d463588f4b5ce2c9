// The SQL that applies one run-caused rule (run-alert-rules.ts): find causes newer than the
// watermark, and resolve open alerts that a later good run cleared. Rule fragments are constants in
// code, never input; every value travels as a parameter.
import type { Queryable } from "../db/pool";
import type { AlertCandidate, AlertChange } from "./alert-change";
import { ALERT_KIND_INFO, type AlertKind } from "./alert-kinds";
import type { RunAlertRule } from "./run-alert-rules";

export async function detectRunCauses(db: Queryable, rule: RunAlertRule): Promise<AlertCandidate[]> {
  const { rows } = await db.query<{
    schedule_id: string;
    schedule_name: string;
    run_id: string;
    mark: Date;
    causes: number;
    detail: Record<string, unknown> | null;
  }>(
    `WITH seen AS (
       SELECT a.schedule_id, max(a.last_cause_at) AS mark
         FROM alerts a
        WHERE a.kind = $3 AND starts_with(a.dedupe_key, $2) AND a.schedule_id IS NOT NULL
        GROUP BY a.schedule_id),
     bad AS (${rule.badSql}),
     fresh AS (
       SELECT b.*, count(*) OVER (PARTITION BY b.schedule_id) AS causes,
              row_number() OVER (PARTITION BY b.schedule_id ORDER BY b.mark DESC) AS rn
         FROM bad b)
     SELECT f.schedule_id, s.name AS schedule_name, f.run_id, f.mark, f.causes::int AS causes,
            ${rule.detailSql} || coalesce(f.extra, '{}'::jsonb) AS detail
       FROM fresh f
       JOIN schedules s ON s.id = f.schedule_id AND s.deleted_at IS NULL
       JOIN runs r ON r.id = f.run_id
      WHERE f.rn = 1`,
    [rule.lookbackSeconds, rule.prefix, rule.kind],
  );
  return rows.map((r) => ({
    kind: rule.kind,
    dedupeKey: `${rule.prefix}${r.schedule_id}`,
    severity: ALERT_KIND_INFO[rule.kind].severity,
    scheduleId: r.schedule_id,
    runId: r.run_id,
    message: rule.message(r.schedule_name, r.detail ?? {}),
    data: { ...(r.detail ?? {}), rule: rule.id },
    causeAt: r.mark,
    causes: r.causes,
  }));
}

export async function resolveRunAlerts(db: Queryable, rule: RunAlertRule): Promise<AlertChange[]> {
  const { rows } = await db.query<AlertChangeRow>(
    `WITH cleared AS (
       SELECT a.id, g.id AS good_run_id
         FROM alerts a
         LEFT JOIN schedules s ON s.id = a.schedule_id AND s.deleted_at IS NULL AND (${rule.configSql})
         LEFT JOIN LATERAL (
           SELECT g.id FROM runs g
            WHERE g.schedule_id = a.schedule_id AND (${rule.goodSql})
            ORDER BY ${rule.goodOrder}
            LIMIT 1) g ON s.id IS NOT NULL
        WHERE a.kind = $1 AND starts_with(a.dedupe_key, $2) AND a.resolved_at IS NULL
          AND (s.id IS NULL OR g.id IS NOT NULL))
     UPDATE alerts a
        SET resolved_at = clock_timestamp(),
            resolution = CASE WHEN c.good_run_id IS NULL THEN $3 ELSE $4 || ' (run ' || c.good_run_id || ').' END
       FROM cleared c
      WHERE a.id = c.id AND a.resolved_at IS NULL
     RETURNING a.id, a.kind, a.dedupe_key, a.schedule_id, a.run_id, a.message, a.resolution`,
    [rule.kind, rule.prefix, "The schedule was deleted or no longer sets this expectation.", rule.goodPhrase],
  );
  return rows.map(toChange);
}

/** The columns every alert-changing statement returns (upsert-alerts.ts too). */
export interface AlertChangeRow {
  id: string;
  kind: AlertKind;
  dedupe_key: string;
  schedule_id: string | null;
  run_id: string | null;
  message: string;
  resolution: string | null;
}

export function toChange(r: AlertChangeRow): AlertChange {
  return {
    id: r.id,
    kind: r.kind,
    dedupeKey: r.dedupe_key,
    scheduleId: r.schedule_id,
    runId: r.run_id,
    message: r.message,
    resolution: r.resolution ?? null,
  };
}
