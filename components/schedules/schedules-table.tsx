"use client";
import Link from "next/link";
import { RunStatePill } from "../ui/run-state-pill";
import { formatInZone, formatRelative, viewerZone } from "../ui/time-format";
import { useNow } from "../ui/use-now";
import { LatenessSparkline } from "./lateness-sparkline";
import { ScheduleState } from "./schedule-state";
import type { ScheduleView } from "./schedules-queries";
import { HandlerName } from "./handler-availability";
import { TagList } from "./tag-list";

function zoneOf(s: ScheduleView): string {
  return s.trigger.kind === "cron" ? s.trigger.timezone : s.timezone || "UTC";
}

function Counts({ c }: { c: ScheduleView["counts24h"] }) {
  const items = [
    { n: c.late, label: "late", icon: "◷", tone: "warn" },
    { n: c.missed, label: "missed", icon: "⚠", tone: "warn" },
    { n: c.hollow, label: "hollow", icon: "○", tone: "warn" },
    { n: c.failed, label: "failed", icon: "✕", tone: "bad" },
  ];
  return (
    <div className="counts" data-testid="counts-24h">
      {items.map((i) => (
        <span
          key={i.label}
          className={i.n > 0 ? `${i.tone}-text` : "muted"}
          title={i.label === "failed" ? "failed, timed out or zombie" : undefined}
        >
          <span aria-hidden="true">{i.icon}</span> {i.n} {i.label}
        </span>
      ))}
    </div>
  );
}

/** One page of schedules with their state, next fire, last outcome, lateness and the last 24 h at a glance. */
export function SchedulesTable({ list }: { list: ScheduleView[] }) {
  const now = useNow(1000);
  const me = viewerZone();
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
          const zone = zoneOf(s);
          return (
            <tr key={s.id} data-testid="schedule-row" data-name={s.name}>
              <td>
                <Link href={`/schedules/${s.id}`} className="strong nowrap">
                  {s.name}
                </Link>
                <div className="small muted">
                  <HandlerName name={s.handler} pool={s.workerPool ?? null} />
                </div>
                {s.description && <div className="small muted clamp">{s.description}</div>}
                <TagList tags={s.tags} />
              </td>
              <td>
                <div>{s.triggerDescription}</div>
                {!s.triggerDescription.includes(`(${zone})`) && <div className="small muted">times in {zone}</div>}
              </td>
              <td>
                <ScheduleState schedule={s} />
              </td>
              <td data-testid="next-fire">
                {s.paused ? (
                  <span className="muted">{s.paused.until ? `paused; resumes ${formatRelative(s.paused.until, now)}` : "paused"}</span>
                ) : s.nextFireAt ? (
                  <>
                    <div>{formatRelative(s.nextFireAt, now)}</div>
                    <div className="small mono">{formatInZone(s.nextFireAt, zone)}</div>
                    {me !== zone && <div className="small mono muted">{formatInZone(s.nextFireAt, me)} (you)</div>}
                  </>
                ) : (
                  <span className="muted">no further fires</span>
                )}
              </td>
              <td>
                {s.lastRun ? (
                  <>
                    <Link href={`/runs/${s.lastRun.id}`}>
                      <RunStatePill state={s.lastRun.state} />
                    </Link>
                    <div className="small muted">{formatRelative(s.lastRun.finishedAt ?? s.lastRun.plannedAt, now)}</div>
                  </>
                ) : (
                  <span className="muted">never ran</span>
                )}
              </td>
              <td>
                <LatenessSparkline values={s.recentLateness} jitterMs={s.startJitterMs} />
              </td>
              <td>
                <Counts c={s.counts24h} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
