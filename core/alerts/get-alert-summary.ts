// What the header badge shows: how many alerts are open (and not yet acknowledged), and the newest.
import type { Queryable } from "../db/pool";
import type { AlertKind, AlertSeverity } from "./alert-kinds";

export interface AlertSummary {
  open: number;
  unacknowledged: number;
  critical: number;
  newest: { id: string; kind: AlertKind; severity: AlertSeverity; message: string; openedAt: Date } | null;
}

const VISIBLE = `($1::uuid[] IS NULL OR schedule_id IS NULL
  OR EXISTS (SELECT 1 FROM schedules s WHERE s.id = schedule_id AND s.team_id = ANY($1::uuid[])))`;

/** teamIds: only alerts of these teams' schedules and those of no schedule (null: every alert). */
export async function getAlertSummary(db: Queryable, teamIds: readonly string[] | null = null): Promise<AlertSummary> {
  const { rows } = await db.query<{
    open: number;
    unacknowledged: number;
    critical: number;
    /** jsonb: openedAt arrives as an ISO string. */
    newest: (Omit<NonNullable<AlertSummary["newest"]>, "openedAt"> & { openedAt: string }) | null;
  }>(
    `SELECT count(*)::int AS open,
            count(*) FILTER (WHERE acknowledged_at IS NULL)::int AS unacknowledged,
            count(*) FILTER (WHERE severity = 'critical')::int AS critical,
            (SELECT jsonb_build_object('id', id, 'kind', kind, 'severity', severity, 'message', message, 'openedAt', opened_at)
               FROM alerts WHERE resolved_at IS NULL AND ${VISIBLE} ORDER BY opened_at DESC, id DESC LIMIT 1) AS newest
       FROM alerts WHERE resolved_at IS NULL AND ${VISIBLE}`,
    [teamIds ? [...teamIds] : null],
  );
  const r = rows[0]!;
  return {
    open: r.open,
    unacknowledged: r.unacknowledged,
    critical: r.critical,
    newest: r.newest ? { ...r.newest, openedAt: new Date(r.newest.openedAt) } : null,
  };
}
