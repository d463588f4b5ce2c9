"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { scheduleStatsQuery, type ScheduleStatsView } from "../ui/overview-queries";
import { RunStatePill } from "../ui/run-state-pill";
import { formatInZone, formatRelative, viewerZone } from "../ui/time-format";
import { useNow } from "../ui/use-now";
import { LatenessSparkline } from "./lateness-sparkline";
import { ScheduleState } from "./schedule-state";
import { schedulesQuery, type ScheduleView } from "./schedules-queries";

function zoneOf(s: ScheduleView): string {
  return s.trigger.kind === "cron" ? s.trigger.timezone : s.timezone || "UTC";
}

function Counts({ c }: { c: ScheduleStatsView["last24h"] | undefined }) {
  if (!c) return <span className="muted">—</span>;
  const items = [
    { n: c.late, label: "late", icon: "⏰", tone: "warn" },
    { n: c.missed, label: "missed", icon: "⚠", tone: "warn" },
    { n: c.hollow, label: "hollow", icon: "○", tone: "warn" },
    { n: c.failed, label: "failed", icon: "✕", tone: "bad" },
  ];
  return (
    <div className="counts" data-testid="counts-24h">
      {items.map((i) => (
        <span key={i.label} className={i.n > 0 ? `${i.tone}-text` : "muted"} title={i.label === "failed" ? "failed, timed out or zombie" : undefined}>
          <span aria-hidden="true">{i.icon}</span> {i.n} {i.label}
        </span>
      ))}
      <span className="muted small">of {c.total} runs</span>
    </div>
  );
}

/** Every schedule with its state, next fire, last outcome, lateness and the last 24 h at a glance. */
export function SchedulesTable() {
  const schedules = useQuery(schedulesQuery());
  const stats = useQuery(scheduleStatsQuery());
  const now = useNow(1000);
  const me = viewerZone();
  if (schedules.isLoading) return <p className="muted">Loading schedules…</p>;
  if (schedules.error) return <p className="error">Could not load schedules: {schedules.error.message}</p>;
  const list = schedules.data?.schedules ?? [];
  if (list.length === 0) {
    return (
      <div className="card empty">
        <p>No schedules yet.</p>
        <Link href="/schedules/new" className="button primary-link">
          Create the first schedule
        </Link>
      </div>
    );
  }
  const byId = new Map((stats.data?.schedules ?? []).map((s) => [s.scheduleId, s]));
  return (
    <table className="table" data-testid="schedules-table">
      <thead>
        <tr>
          <th>Schedule</th>
          <th>Trigger</th>
          <th>State</th>
          <th>Next fire</th>
          <th>Last outcome</th>
          <th>Lateness (recent runs)</th>
          <th>Last 24 h</th>
        </tr>
      </thead>
      <tbody>
        {list.map((s) => {
          const st = byId.get(s.id);
          const zone = zoneOf(s);
          return (
            <tr key={s.id} data-testid="schedule-row" data-name={s.name}>
              <td>
                <Link href={`/schedules/${s.id}`} className="strong">
                  {s.name}
                </Link>
                <div className="small muted mono">{s.handler}</div>
                {s.description && <div className="small muted clamp">{s.description}</div>}
              </td>
              <td>
                <div>{s.triggerDescription}</div>
                <div className="small muted">zone {zone}</div>
              </td>
              <td>
                <ScheduleState schedule={s} />
              </td>
              <td data-testid="next-fire">
                {s.paused ? (
                  <span className="muted">paused</span>
                ) : st?.nextFireAt ? (
                  <>
                    <div>{formatRelative(st.nextFireAt, now)}</div>
                    <div className="small mono">{formatInZone(st.nextFireAt, zone)}</div>
                    {me !== zone && <div className="small mono muted">{formatInZone(st.nextFireAt, me)} (you)</div>}
                  </>
                ) : (
                  <span className="muted">{st ? "no further fires" : "…"}</span>
                )}
              </td>
              <td>
                {st?.lastRun ? (
                  <>
                    <Link href={`/runs/${st.lastRun.runId}`}>
                      <RunStatePill state={st.lastRun.state} />
                    </Link>
                    <div className="small muted">{formatRelative(st.lastRun.finishedAt ?? st.lastRun.plannedAt, now)}</div>
                  </>
                ) : (
                  <span className="muted">never ran</span>
                )}
              </td>
              <td>{st ? <LatenessSparkline points={st.lateness} /> : null}</td>
              <td>
                <Counts c={st?.last24h} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
