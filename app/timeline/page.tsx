import { Suspense } from "react";
import { TimelineView } from "@/components/timeline/timeline-view";

export default async function TimelinePage({ searchParams }: { searchParams: Promise<{ scheduleId?: string; q?: string }> }) {
  const { scheduleId, q } = await searchParams;
  return (
    <section>
      <h1>Timeline</h1>
      <p className="muted">
        Planned occurrences (▼ markers) against what actually ran (bars from start to finish). A late start shows as a connector from its
        marker to the bar.
      </p>
      <Suspense fallback={<p className="muted">Loading timeline…</p>}>
        <TimelineView initialScheduleId={scheduleId} initialQuery={q} />
      </Suspense>
    </section>
  );
}
