import { Suspense } from "react";
import { TimelineView } from "@/components/timeline/timeline-view";

export default async function TimelinePage({
  searchParams,
}: {
  searchParams: Promise<{ scheduleId?: string; q?: string; window?: string }>;
}) {
  const { scheduleId, q, window } = await searchParams;
  return (
    <section>
      <h1>Timeline</h1>
      <p className="muted">
        Planned occurrences (▼ markers) against what actually ran (bars from start to finish). A late start shows as a connector from its
        marker to the bar. Right of the now-line, hollow marks are the forecast: every fire the schedules&apos; plan computes (&quot;Next 6
        h&quot;, &quot;Next 24 h&quot;, &quot;Next 7 days&quot;), with why each will or will not run.
      </p>
      <Suspense fallback={<p className="muted">Loading timeline…</p>}>
        <TimelineView initialScheduleId={scheduleId} initialQuery={q} initialWindow={window} />
      </Suspense>
    </section>
  );
}
