import { formatInZone } from "../ui/time-format";
import type { ScheduleView } from "./schedules-queries";

/** Active, or paused by whom, why and until when; ended after its end date, "starts …" before its start date. */
export function ScheduleState({ schedule, detailed = false }: { schedule: ScheduleView; detailed?: boolean }) {
  const p = schedule.paused;
  const nowMs = Date.now();
  if (schedule.endsAt && Date.parse(schedule.endsAt) < nowMs)
    return (
      <div data-testid="schedule-state" data-state="ended">
        <span className="pill muted">■ ended</span>
        <div className="small muted">no fires after {formatInZone(schedule.endsAt)}</div>
      </div>
    );
  if (schedule.startsAt && Date.parse(schedule.startsAt) > nowMs)
    return (
      <div data-testid="schedule-state" data-state="not_started">
        <span className="pill info">◇ starts {formatInZone(schedule.startsAt)}</span>
        {schedule.endsAt && <div className="small muted">ends {formatInZone(schedule.endsAt)}</div>}
      </div>
    );
  if (!schedule.enabled && !p) return <span className="pill muted">■ disabled</span>;
  if (!p)
    return (
      <span className="pill ok" data-testid="schedule-state" data-state="active">
        ● active
      </span>
    );
  return (
    <div data-testid="schedule-state" data-state="paused">
      <span className="pill warn">‖ paused</span>
      <div className="small">
        by {p.by ?? "unknown"}
        {p.reason ? <>: “{p.reason}”</> : null}
      </div>
      <div className="small muted">
        {p.until ? `until ${formatInZone(p.until)}` : "until resumed"}
        {detailed && ` · since ${formatInZone(p.at)}`}
      </div>
    </div>
  );
}
