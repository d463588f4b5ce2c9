// One look per forecast fate (core/schedules/fire-plan.ts FireFate), shared by the chart, its legend and the hover
// card. Forecast marks are drawn hollow (outline only, dashed when summarised) so they never read as a planned row
// (filled grey marker) or a run (filled bar); the colour says the fate, the word says it too.

export interface ForecastStyle {
  label: string;
  color: string;
  meaning: string;
}

export const FORECAST_STYLE: Record<string, ForecastStyle> = {
  run: {
    label: "will run",
    color: "#4ea1ff",
    meaning: "The plan fires it; no run exists yet (the planner writes rows a few minutes ahead).",
  },
  excluded: { label: "excluded", color: "#ff8c42", meaning: "A business calendar removes this fire; it is recorded as excluded, not run." },
  paused: { label: "paused", color: "#8b98a8", meaning: "Falls inside a pause (or a maintenance window) of its schedule." },
  ended: { label: "after end date", color: "#6e7681", meaning: "After the schedule's end date: it will not fire." },
  not_started: { label: "before start date", color: "#6e7681", meaning: "Before the schedule's start date: it will not fire." },
  proposed: {
    label: "proposed by this dry run",
    color: "#3fb950",
    meaning: "A run the backfill or resume you are previewing would enqueue; nothing is written until you confirm.",
  },
  dst_skipped: { label: "skipped by DST", color: "#d2a8ff", meaning: "Its wall time does not exist that day and the DST policy skips it." },
};

export function forecastStyle(fate: string): ForecastStyle {
  return FORECAST_STYLE[fate] ?? { label: fate.replace(/_/g, " "), color: "#b1bac4", meaning: "Forecast by the schedule's plan." };
}
