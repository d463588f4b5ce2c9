import { ALERT_KIND_INFO, type AlertKind, type AlertSeverity } from "@/core/alerts/alert-kinds";

/** Severity as icon + word + colour (never colour alone). */
export function AlertSeverityPill({ severity, resolved }: { severity: AlertSeverity; resolved?: boolean }) {
  if (resolved) {
    return (
      <span className="pill ok" data-testid="alert-severity" data-severity={severity}>
        <span aria-hidden="true">✓</span> resolved
      </span>
    );
  }
  return (
    <span className={`pill ${severity === "critical" ? "bad" : "warn"}`} data-testid="alert-severity" data-severity={severity}>
      <span aria-hidden="true">{severity === "critical" ? "✕" : "!"}</span> {severity}
    </span>
  );
}

export function alertKindLabel(kind: AlertKind): string {
  return ALERT_KIND_INFO[kind]?.label ?? kind;
}
