"use client";
// The last 90 days of a schedule from its daily summaries, which outlive the runs (retention): one bar per UTC day
// (height = runs, red share = failed + missed + hollow, amber = late) and the totals.
import { useQuery } from "@tanstack/react-query";
import { formatDuration } from "../ui/time-format";
import { dailySummariesQuery } from "./schedules-queries";

export function DailyHistory({ scheduleId }: { scheduleId: string }) {
  const { data, error, isLoading } = useQuery(dailySummariesQuery(scheduleId));
  if (isLoading) return <p className="muted">Loading daily history…</p>;
  if (error) return <p className="error">Could not load daily history: {error.message}</p>;
  const { days, totals } = data!;
  if (days.length === 0) return <p className="muted small">No finished day yet (days are summarized after they end, UTC).</p>;
  const peak = Math.max(1, ...days.map((d) => d.total));
  return (
    <div data-testid="daily-history">
      <div style={{ display: "flex", alignItems: "flex-end", gap: 2, height: 48 }} aria-hidden>
        {days.map((d) => {
          const bad = d.failed + d.missed + d.hollow;
          const h = Math.max(2, Math.round((d.total / peak) * 48));
          return (
            <div
              key={d.day}
              title={`${d.day}: ${d.total} runs · ${d.late} late · ${d.failed} failed · ${d.missed} missed · ${d.hollow} hollow · p95 ${
                d.latenessP95Ms === null ? "—" : formatDuration(d.latenessP95Ms)
              }`}
              style={{ width: 6, height: h, display: "flex", flexDirection: "column-reverse", background: "var(--ok, #3a7)" }}
            >
              <div style={{ height: `${(bad / Math.max(1, d.total)) * 100}%`, background: "var(--bad, #c33)" }} />
              <div style={{ height: `${(d.late / Math.max(1, d.total)) * 100}%`, background: "var(--warn, #d90)" }} />
            </div>
          );
        })}
      </div>
      <p className="small" data-testid="daily-totals">
        {days.length} days: {totals.total} runs · {totals.onTime} on time · {totals.late} late · {totals.missed} missed · {totals.skipped}{" "}
        skipped · {totals.hollow} hollow · {totals.failed} failed
        {totals.latenessMaxMs !== null && ` · max lateness ${formatDuration(totals.latenessMaxMs)}`}
      </p>
    </div>
  );
}
