// The window the timeline shows: relative to now (follows the clock, refreshed live) or fixed (after a
// zoom or pan). Kept apart from rendering so presets, zoom and pan are plain arithmetic.

export type TimelineWindow = { kind: "relative"; backMs: number; aheadMs: number } | { kind: "fixed"; from: number; to: number };

const H = 3_600_000;

/** `id` is the preset's name in the page address (/timeline?window=next-24h). */
export const WINDOW_PRESETS: { id: string; label: string; window: TimelineWindow }[] = [
  { id: "last-15m", label: "Last 15 min + next 5 min", window: { kind: "relative", backMs: H / 4, aheadMs: H / 12 } },
  { id: "last-1h", label: "Last 1 h + next 15 min", window: { kind: "relative", backMs: H, aheadMs: H / 4 } },
  { id: "last-6h", label: "Last 6 h + next 1 h", window: { kind: "relative", backMs: 6 * H, aheadMs: H } },
  { id: "last-24h", label: "Last 24 h + next 1 h", window: { kind: "relative", backMs: 24 * H, aheadMs: H } },
  { id: "last-7d", label: "Last 7 days", window: { kind: "relative", backMs: 7 * 24 * H, aheadMs: H } },
  // The plan ahead: the forecast (core/runs/read/timeline-forecast.ts) fills these. The window may span 7 days.
  { id: "next-6h", label: "Next 6 h", window: { kind: "relative", backMs: 0, aheadMs: 6 * H } },
  { id: "next-24h", label: "Next 24 h", window: { kind: "relative", backMs: 0, aheadMs: 24 * H } },
  { id: "next-7d", label: "Next 7 days", window: { kind: "relative", backMs: 0, aheadMs: 7 * 24 * H } },
];

/** The preset named `id` in a page address, or undefined. */
export function presetWindow(id: string | undefined): TimelineWindow | undefined {
  return WINDOW_PRESETS.find((p) => p.id === id)?.window;
}

export const DEFAULT_WINDOW = WINDOW_PRESETS[2]!.window as Extract<TimelineWindow, { kind: "relative" }>;

/**
 * The window a visit starts with once it knows when the lanes' history began: the narrowest preset whose past covers
 * it, never wider than the default. A new install's first runs then fill the chart instead of a sliver at the right
 * edge of six hours; a fleet with older history gets the default.
 */
export function fittedDefaultWindow(historyFrom: number | null, now: number): TimelineWindow {
  if (historyFrom === null) return DEFAULT_WINDOW;
  const age = now - historyFrom;
  const fit = WINDOW_PRESETS.find((p) => p.window.kind === "relative" && p.window.backMs >= age && p.window.backMs < DEFAULT_WINDOW.backMs);
  return fit?.window ?? DEFAULT_WINDOW;
}

export function resolveWindow(w: TimelineWindow, now: number): { from: number; to: number } {
  return w.kind === "relative" ? { from: now - w.backMs, to: now + w.aheadMs } : { from: w.from, to: w.to };
}

/**
 * A relative window snapped to steps of about one pixel (a 1200th of its span, at least a second): refreshes
 * within the same step ask for the same range, so unchanged data can be recognised and not redrawn.
 */
export function snappedWindow(w: TimelineWindow, now: number): { from: number; to: number } {
  if (w.kind === "fixed") return resolveWindow(w, now);
  return resolveWindow(w, snapToStep(w, now));
}

/** About one pixel of the window's width in ms (at least a second): finer movement is invisible. */
export function windowStep(w: TimelineWindow): number {
  const { from, to } = resolveWindow(w, 0);
  return Math.max(1000, Math.round((to - from) / 1200));
}

export function snapToStep(w: TimelineWindow, t: number): number {
  const step = windowStep(w);
  return Math.floor(t / step) * step;
}

/** Zoom around the centre by `factor` (< 1 zooms in); never narrower than a minute. */
export function zoomWindow(w: TimelineWindow, now: number, factor: number): TimelineWindow {
  const { from, to } = resolveWindow(w, now);
  const centre = (from + to) / 2;
  const half = Math.max(((to - from) * factor) / 2, 30_000);
  return { kind: "fixed", from: Math.round(centre - half), to: Math.round(centre + half) };
}

/** Move by `fraction` of the width (negative = earlier). */
export function panWindow(w: TimelineWindow, now: number, fraction: number): TimelineWindow {
  const { from, to } = resolveWindow(w, now);
  const d = Math.round((to - from) * fraction);
  return { kind: "fixed", from: from + d, to: to + d };
}

export function windowKey(w: TimelineWindow): string {
  return w.kind === "relative" ? `rel:${w.backMs}:${w.aheadMs}` : `fix:${w.from}:${w.to}`;
}

/** Which lanes the chart shows: one page of schedules, sorted and filtered on the server. */
export interface TimelineLaneView {
  scheduleId?: string;
  /** The chart's plot width in px (rounded, so a resize by a few pixels asks for the same answer). */
  width: number;
  laneOffset: number;
  laneLimit: number;
  sort?: "name" | "trouble";
  q?: string;
  tag?: string;
  handler?: string;
  trouble?: "any" | "late" | "missed" | "hollow" | "failed";
  /** One of the caller's teams (the header's team switcher). */
  team?: string;
}

/** The API address of a resolved window and a page of lanes. */
export function timelineUrl(range: { from: number; to: number }, lanes: TimelineLaneView): string {
  const p = new URLSearchParams({ from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
  for (const [k, v] of Object.entries(lanes)) if (v !== undefined && v !== "") p.set(k, String(v));
  return `/api/timeline?${p}`;
}
