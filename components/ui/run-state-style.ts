// One look per run state, shared by tables, the run page and the timeline: a colour AND an icon and a
// word, so meaning never rests on colour alone.

export interface StateStyle {
  label: string;
  icon: string;
  /** globals.css pill modifier. */
  tone: "ok" | "bad" | "warn" | "info" | "muted";
  /** Timeline colour. */
  color: string;
  /** One line for legends and tooltips. */
  meaning: string;
}

export const RUN_STATE_STYLE: Record<string, StateStyle> = {
  planned: { label: "planned", icon: "◇", tone: "muted", color: "#8b98a8", meaning: "Occurrence is planned; not yet handed to the queue." },
  queued: { label: "queued", icon: "◌", tone: "info", color: "#79c0ff", meaning: "Waiting in the queue for a worker (or for a slot)." },
  running: { label: "running", icon: "▶", tone: "info", color: "#4ea1ff", meaning: "An attempt is executing now." },
  retrying: { label: "retrying", icon: "↻", tone: "warn", color: "#e3b341", meaning: "An attempt failed; the next one is scheduled." },
  succeeded: { label: "succeeded", icon: "✓", tone: "ok", color: "#3fb950", meaning: "Finished and did its work." },
  failed: { label: "failed", icon: "✕", tone: "bad", color: "#f85149", meaning: "The handler threw and no attempts are left." },
  timed_out: { label: "timed out", icon: "◔", tone: "bad", color: "#ff8c42", meaning: "Killed at its timeout." },
  cancelled: {
    label: "cancelled",
    icon: "⊘",
    tone: "muted",
    color: "#b1bac4",
    meaning: "Stopped by an operator (or by the cancel_running policy).",
  },
  skipped_overlap: {
    label: "skipped (overlap)",
    icon: "↷",
    tone: "muted",
    color: "#6e7681",
    meaning: "Not run: another run of the schedule was still active.",
  },
  missed: { label: "missed", icon: "⚠", tone: "warn", color: "#d29922", meaning: "Due, but not started before its starting deadline." },
  paused: { label: "paused", icon: "‖", tone: "muted", color: "#57606a", meaning: "Fell inside a pause of its schedule." },
  excluded: {
    label: "excluded",
    icon: "⊝",
    tone: "muted",
    color: "#6e7681",
    meaning: "Not run: a calendar of its schedule excludes it, or another fire was moved onto its instant (its event says which).",
  },
  hollow: {
    label: "hollow",
    icon: "○",
    tone: "warn",
    color: "#f0c674",
    meaning: "Succeeded but reported no work where work was expected.",
  },
  zombie: {
    label: "zombie",
    icon: "☠",
    tone: "bad",
    color: "#d2a8ff",
    meaning: "Its worker stopped heartbeating; put down by the reaper.",
  },
};

export function stateStyle(state: string): StateStyle {
  return RUN_STATE_STYLE[state] ?? { label: state, icon: "•", tone: "muted", color: "#8b98a8", meaning: state };
}
