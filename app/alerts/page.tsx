import { AlertsView } from "@/components/alerts/alerts-view";

export default function AlertsPage() {
  return (
    <section>
      <h1>Alerts</h1>
      <p className="muted">
        Raised by the workers when a schedule runs late, misses a firing, succeeds without doing its work, loses its worker mid-run or keeps
        failing, and when no worker is left or the planner falls behind. Each resolves by itself when its cause clears; acknowledging says
        you are on it and is recorded in the audit trail.
      </p>
      <AlertsView />
    </section>
  );
}
