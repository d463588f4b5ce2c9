import { formatInZone } from "../ui/time-format";
import type { ScheduleView } from "./schedules-queries";

/** Active, or paused by whom, why and until when. */
export function ScheduleState({ schedule, detailed = false }: { schedule: ScheduleView; detailed?: boolean }) {
  const p = schedule.paused;
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
