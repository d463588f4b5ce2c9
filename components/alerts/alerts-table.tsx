"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { formatInZone, formatRelative } from "../ui/time-format";
import { useNow } from "../ui/use-now";
import { useCan } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { AcknowledgeButton } from "./acknowledge-button";
import { AlertSeverityPill, alertKindLabel } from "./alert-severity-pill";
import { alertsQuery, type AlertDeliveryView, type AlertFilters, type AlertView } from "./alerts-queries";

function Deliveries({ deliveries }: { deliveries: AlertDeliveryView[] }) {
  if (deliveries.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="small" style={{ margin: 0, padding: 0, listStyle: "none" }}>
      {deliveries.map((d) => (
        <li key={d.id} title={`${d.url}${d.lastError ? ` — last error: ${d.lastError}` : ""}`}>
          {d.event}: {d.state === "delivered" ? "✓ delivered" : d.state === "failed" ? "✕ failed" : "… pending"}
          {d.attempts > 1 ? ` after ${d.attempts} attempts` : ""}
          {d.state === "pending" && d.lastError ? ` (${d.lastError})` : ""}
        </li>
      ))}
    </ul>
  );
}

function Status({ a, now }: { a: AlertView; now: number }) {
  return (
    <>
      {a.resolvedAt ? (
        <div title={formatInZone(a.resolvedAt)}>
          Resolved {formatRelative(a.resolvedAt, now)}
          {a.resolution && <div className="small muted">{a.resolution}</div>}
        </div>
      ) : (
        <div>Open</div>
      )}
      {a.acknowledgedAt && (
        <div className="small muted" data-testid="alert-acknowledged" title={formatInZone(a.acknowledgedAt)}>
          Acknowledged by {a.acknowledgedBy} {formatRelative(a.acknowledgedAt, now)} ·{" "}
          <Link href={`/audit?target=alert:${a.id}`}>audit trail</Link>
        </div>
      )}
    </>
  );
}

/** Alerts newest first; open ones can be acknowledged by operators. `scheduleId` narrows to one schedule (its page). */
export function AlertsTable({ filters, hideSchedule = false }: { filters: AlertFilters; hideSchedule?: boolean }) {
  const now = useNow();
  const canOperate = useCan("operate");
  const team = usePickedTeam();
  const { data, error, isLoading } = useQuery(alertsQuery({ ...filters, team }));
  if (isLoading) return <p className="muted">Loading alerts…</p>;
  if (error) return <p className="error">Could not load alerts: {error.message}</p>;
  const alerts = data?.alerts ?? [];
  if (alerts.length === 0) {
    return (
      <p className="muted" data-testid="alerts-empty">
        {filters.state === "open" ? "No open alerts: nothing late, missed, hollow, zombie or failing right now." : "No alerts yet."}
      </p>
    );
  }
  return (
    <table className="table compact" data-testid="alerts-table">
      <thead>
        <tr>
          <th>Severity</th>
          <th>Alert</th>
          {!hideSchedule && <th>Schedule</th>}
          <th>Opened</th>
          <th>Last seen</th>
          <th>Status</th>
          <th>Webhook</th>
          <th>
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {alerts.map((a) => (
          <tr key={a.id} data-testid="alert-row" data-kind={a.kind} data-open={a.resolvedAt === null}>
            <td>
              <AlertSeverityPill severity={a.severity} resolved={a.resolvedAt !== null} />
            </td>
            <td>
              <strong>{alertKindLabel(a.kind)}</strong>
              {a.occurrences > 1 && <span className="muted small"> × {a.occurrences}</span>}
              <div data-testid="alert-message">{a.message}</div>
              {a.runId && (
                <Link className="small" href={`/runs/${a.runId}`}>
                  Run {a.runId.slice(0, 8)} →
                </Link>
              )}
            </td>
            {!hideSchedule && (
              <td>
                {a.scheduleId ? (
                  <Link href={`/schedules/${a.scheduleId}`}>{a.scheduleName ?? a.scheduleId.slice(0, 8)}</Link>
                ) : (
                  <span className="muted">system</span>
                )}
              </td>
            )}
            <td title={formatInZone(a.openedAt)}>{formatRelative(a.openedAt, now)}</td>
            <td title={formatInZone(a.lastSeenAt)}>{formatRelative(a.lastSeenAt, now)}</td>
            <td>
              <Status a={a} now={now} />
            </td>
            <td>
              <Deliveries deliveries={a.deliveries} />
            </td>
            <td>{!a.acknowledgedAt && !a.resolvedAt && canOperate && <AcknowledgeButton alert={a} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
