// The global alert settings the console shows beside a schedule's own (the schedule form's "default: 3").
import type { Env } from "../env";

export interface AlertSettings {
  /** VIGIL_ALERT_FAILURE_THRESHOLD: consecutive failures before a schedule without its own threshold alerts; 0 = off. */
  failureAlertThreshold: number;
}

export function alertSettingsFromEnv(env: Env): AlertSettings {
  return { failureAlertThreshold: env.VIGIL_ALERT_FAILURE_THRESHOLD };
}
