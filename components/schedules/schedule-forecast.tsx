"use client";
import { TimelineView } from "../timeline/timeline-view";

/** The schedule page's "Timeline and forecast": the timeline chart for this schedule alone, the next 24 h by default. */
export function ScheduleForecast({ scheduleId }: { scheduleId: string }) {
  return (
    <section className="card" aria-labelledby="schedule-forecast-title" data-testid="schedule-forecast">
      <h2 id="schedule-forecast-title">Timeline and forecast</h2>
      <p className="muted small">
        What ran and what the plan says comes next: hollow marks are forecast fires (hover one for why it will or will not run). Pick
        another window, or <a href={`/timeline?scheduleId=${scheduleId}&window=next-24h`}>open it on the full timeline</a>.
      </p>
      <TimelineView initialScheduleId={scheduleId} initialWindow="next-24h" oneSchedule />
    </section>
  );
}
