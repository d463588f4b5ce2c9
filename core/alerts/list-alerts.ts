// Alerts as the console and the API show them: newest first, with their schedule's name and the
// webhook deliveries (every attempt) of each.
import type { Queryable } from "../db/pool";
import type { AlertEvent, AlertKind, AlertSeverity } from "./alert-kinds";

export interface AlertDeliveryView {
  id: string;
  event: AlertEvent;
  url: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  log: {
    attempt: number;
    startedAt: string;
    finishedAt: string;
    status?: number;
    error?: string;
    durationMs: number;
    retryInMs?: number;
  }[];
}

/** The console's view of an alert: what every view shows (alertFields), its dedupe key and its deliveries. */
export interface AlertView extends AlertSnapshot {
  dedupeKey: string;
  deliveries: AlertDeliveryView[];
}

export interface ListAlertsFilter {
  state: "open" | "all";
  scheduleId?: string;
  kind?: AlertKind;
  /** Only alerts of schedules having every one of these tags. */
  tags?: string[];
  /** Only alerts of these teams' schedules, and those of no schedule (a worker down concerns everyone); null: all. */
  teamIds?: readonly string[] | null;
  limit: number;
  /** Keyset cursor from a previous page: alerts opened before this one. */
  before?: { openedAt: Date; id: string };
}

export const ALERT_COLUMNS = `
  a.id, a.kind, a.severity, a.message, a.dedupe_key, a.schedule_id, s.name AS schedule_name, a.run_id, a.opened_at,
  a.last_seen_at, a.resolved_at, a.resolution, a.occurrences, a.acknowledged_at, a.acknowledged_by, a.data,
  (SELECT coalesce(jsonb_agg(jsonb_build_object(
            'id', d.id::text, 'event', d.event, 'url', d.url, 'state', d.state, 'attempts', d.attempts,
            'nextAttemptAt', d.next_attempt_at, 'lastStatus', d.last_status, 'lastError', d.last_error,
            'deliveredAt', d.delivered_at, 'log', d.log) ORDER BY d.id), '[]'::jsonb)
     FROM alert_deliveries d WHERE d.alert_id = a.id) AS deliveries`;

/** A row of ALERT_COLUMNS. */
export interface AlertRow {
  id: string;
  kind: AlertKind;
  severity: AlertSeverity;
  message: string;
  dedupe_key: string;
  schedule_id: string | null;
  schedule_name: string | null;
  run_id: string | null;
  opened_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
  resolution: string | null;
  occurrences: number;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  data: Record<string, unknown> | null;
  deliveries: AlertDeliveryView[];
}

/** What every view of an alert shows (the console's AlertView, the webhook's AlertSnapshot). */
export function alertFields(r: Omit<AlertRow, "dedupe_key" | "deliveries">) {
  return {
    id: r.id,
    kind: r.kind,
    severity: r.severity,
    message: r.message,
    scheduleId: r.schedule_id,
    scheduleName: r.schedule_name,
    runId: r.run_id,
    openedAt: r.opened_at,
    lastSeenAt: r.last_seen_at,
    resolvedAt: r.resolved_at,
    resolution: r.resolution,
    occurrences: r.occurrences,
    acknowledgedAt: r.acknowledged_at,
    acknowledgedBy: r.acknowledged_by,
    data: r.data,
  };
}

/** An alert as every view shows it; the webhook's body carries it as is (claimAlertDeliveries). */
export type AlertSnapshot = ReturnType<typeof alertFields>;

export function toAlertView(r: AlertRow): AlertView {
  return { ...alertFields(r), dedupeKey: r.dedupe_key, deliveries: r.deliveries };
}

export async function listAlerts(db: Queryable, f: ListAlertsFilter): Promise<{ alerts: AlertView[]; nextCursor: string | null }> {
  const { rows } = await db.query<AlertRow>(
    `SELECT ${ALERT_COLUMNS}
       FROM alerts a LEFT JOIN schedules s ON s.id = a.schedule_id
      WHERE ($1 = 'all' OR a.resolved_at IS NULL)
        AND ($2::uuid IS NULL OR a.schedule_id = $2)
        AND ($3::text IS NULL OR a.kind = $3)
        AND ($4::timestamptz IS NULL OR (a.opened_at, a.id) < ($4, $5::uuid))
        AND ($7::text[] IS NULL OR s.tags @> $7::text[])
        AND ($8::uuid[] IS NULL OR a.schedule_id IS NULL OR s.team_id = ANY($8::uuid[]))
      ORDER BY a.opened_at DESC, a.id DESC
      LIMIT $6`,
    [
      f.state,
      f.scheduleId ?? null,
      f.kind ?? null,
      f.before?.openedAt ?? null,
      f.before?.id ?? null,
      f.limit + 1,
      f.tags?.length ? f.tags : null,
      f.teamIds ? [...f.teamIds] : null,
    ],
  );
  const page = rows.slice(0, f.limit).map(toAlertView);
  const last = page.at(-1);
  return { alerts: page, nextCursor: rows.length > f.limit && last ? encodeAlertCursor(last) : null };
}

export function encodeAlertCursor(a: { openedAt: Date; id: string }): string {
  return Buffer.from(`${a.openedAt.toISOString()}|${a.id}`).toString("base64url");
}

/** null when the cursor is not one this API produced. */
export function decodeAlertCursor(cursor: string): { openedAt: Date; id: string } | null {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const openedAt = new Date(at ?? "");
  if (!id || Number.isNaN(openedAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  return { openedAt, id };
}
