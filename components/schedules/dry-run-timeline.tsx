"use client";
import { useMemo } from "react";
import { TimelineView } from "../timeline/timeline-view";

const MIN = 60_000;
const WEEK = 7 * 86_400_000;

/**
 * What a backfill or resume would do, drawn before the operator confirms: the schedule's timeline over the dry run's
 * range with the instants it would enqueue as "proposed" marks (hollow, green) beside the runs that exist.
 */
export function DryRunTimeline({
  scheduleId,
  plannedAt,
  range,
}: {
  scheduleId: string;
  plannedAt: string[];
  range?: { from: string; to: string };
}) {
  const at = useMemo(() => plannedAt.map((p) => Date.parse(p)).sort((a, b) => a - b), [plannedAt]);
  const proposed = useMemo(() => ({ scheduleId, at }), [scheduleId, at]);
  const window = useMemo(() => {
    const lo = Math.min(...at, range ? Date.parse(range.from) : Infinity);
    const hi = Math.max(...at, range ? Date.parse(range.to) : -Infinity);
    const pad = Math.max((hi - lo) * 0.05, 5 * MIN);
    const to = Math.round(hi + pad);
    // The timeline draws at most 7 days: a longer range shows its last week.
    return { from: Math.round(Math.max(lo - pad, to - WEEK)), to };
  }, [at, range]);
  if (at.length === 0 || !Number.isFinite(window.from)) return null;
  const cut = at[0]! < window.from;
  return (
    <div data-testid="dry-run-timeline" data-proposed={at.length}>
      <p className="muted small">
        On the timeline: the {at.length} proposed run(s) as hollow green marks beside what already ran.
        {cut && " The range is longer than 7 days: its last week is drawn."}
      </p>
      <TimelineView initialScheduleId={scheduleId} fixedWindow={window} proposed={proposed} oneSchedule />
    </div>
  );
}
