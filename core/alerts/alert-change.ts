// The shapes passing between the alert rules, the upsert/resolve SQL and the webhook queue.
import type { AlertKind, AlertSeverity } from "./alert-kinds";

/** A condition a rule found firing now; becomes a new open alert or refreshes the open one with its key. */
export interface AlertCandidate {
  kind: AlertKind;
  dedupeKey: string;
  severity: AlertSeverity;
  scheduleId: string | null;
  runId: string | null;
  message: string;
  data: Record<string, unknown>;
  /** Run-caused alerts: the newest cause's instant (watermark); null for conditions (no live worker…). */
  causeAt: Date | null;
  /** How many new causes this candidate carries (bad runs since the watermark). */
  causes: number;
}

/** An alert that opened or resolved in this evaluation. */
export interface AlertChange {
  id: string;
  kind: AlertKind;
  dedupeKey: string;
  scheduleId: string | null;
  runId: string | null;
  message: string;
  resolution: string | null;
}
