// Everything else that grows, each in batches by an index:
// - once_markers: a marker guards an effect against a second execution of the same idempotency key. That can
//   come from a retry or a duplicate delivery (both while the run is live) or from an operator's re-run of the
//   occurrence (possible as long as the run row exists, i.e. up to its schedule's retention). So a marker goes only
//   when it is older than onceMarkersDays AND its run is gone: the bound is max(run retention, onceMarkersDays).
// - alerts resolved long ago (their webhook deliveries cascade), and finished deliveries of alerts still open.
// - sessions past their expiry (they no longer authenticate anyone).
// - sign-in attempts older than the throttle's window.
// - daily summaries older than summariesDays.
import type { Queryable } from "../db/pool";
import type { RetentionSettings } from "./retention-settings";

export interface SideTablesExpired {
  onceMarkers: number;
  alerts: number;
  alertDeliveries: number;
  sessions: number;
  loginAttempts: number;
  summaries: number;
}

async function inBatches(db: Queryable, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await db.query<{ n?: number }>(sql, params);
    // A DELETE counts its rows; a function doing it (vigil_expire_sessions) answers its count as n.
    const n = r.rows[0]?.n ?? r.rowCount ?? 0;
    total += n;
    if (n < (params[params.length - 1] as number)) return total;
  }
}

export async function expireSideTables(db: Queryable, s: RetentionSettings): Promise<SideTablesExpired> {
  const out: SideTablesExpired = { onceMarkers: 0, alerts: 0, alertDeliveries: 0, sessions: 0, loginAttempts: 0, summaries: 0 };
  const b = s.batchSize;
  if (s.onceMarkersDays > 0) {
    out.onceMarkers = await inBatches(
      db,
      `DELETE FROM once_markers WHERE key IN (
         SELECT m.key FROM once_markers m
          WHERE m.created_at < now() - make_interval(days => $1)
            AND (m.run_id IS NULL OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = m.run_id))
          ORDER BY m.created_at LIMIT $2)`,
      [s.onceMarkersDays, b],
    );
  }
  if (s.alertsDays > 0) {
    out.alerts = await inBatches(
      db,
      `DELETE FROM alerts WHERE id IN (
         SELECT id FROM alerts WHERE resolved_at < now() - make_interval(days => $1) LIMIT $2)`,
      [s.alertsDays, b],
    );
    out.alertDeliveries = await inBatches(
      db,
      `DELETE FROM alert_deliveries WHERE id IN (
         SELECT id FROM alert_deliveries WHERE state IN ('delivered', 'failed') AND created_at < now() - make_interval(days => $1) LIMIT $2)`,
      [s.alertsDays, b],
    );
  }
  // Through a function: the worker's role may not delete sessions itself (core/db/grants.ts).
  out.sessions = await inBatches(db, `SELECT vigil_expire_sessions($1) AS n`, [b]);
  if (s.loginAttemptsDays > 0) {
    out.loginAttempts = await inBatches(
      db,
      `DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE at < now() - make_interval(days => $1) LIMIT $2)`,
      [s.loginAttemptsDays, b],
    );
  }
  if (s.summariesDays > 0) {
    out.summaries = await inBatches(
      db,
      `DELETE FROM run_daily_summaries WHERE (schedule_id, day) IN (
         SELECT schedule_id, day FROM run_daily_summaries WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int LIMIT $2)`,
      [s.summariesDays, b],
    );
  }
  return out;
}
