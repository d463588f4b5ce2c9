import { preload } from "react-dom";
import { TimelineView } from "@/components/timeline/timeline-view";
import { DEFAULT_WINDOW, snappedWindow, timelineUrl } from "@/components/timeline/timeline-window";

export default async function TimelinePage({ searchParams }: { searchParams: Promise<{ scheduleId?: string }> }) {
  const { scheduleId } = await searchParams;
  // The browser starts fetching the default window while the page's scripts load, instead of after they run.
  // The console computes the same snapped window from the same clock, so its first fetch takes this answer
  // (if the clocks disagree it simply asks again).
  const first = snappedWindow(DEFAULT_WINDOW, Date.now());
  preload(timelineUrl(first, scheduleId), { as: "fetch", crossOrigin: "anonymous" });
  return (
    <section>
      <h1>Timeline</h1>
      <p className="muted">
        Planned occurrences (▼ markers) against what actually ran (bars from start to finish). A late start shows as a connector from its
        marker to the bar.
      </p>
      <TimelineView initialScheduleId={scheduleId} />
    </section>
  );
}
