import { AlertsView } from "@/components/alerts/alerts-view";
import { AlertChannels } from "@/components/alerts/alert-channels";

export default function AlertsPage() {
  return (
    <section>
      <h1>Alerts</h1>
      <p className="muted">
        Raised by the workers when a schedule runs late, misses a firing, succeeds without doing its work, loses its worker mid-run or keeps
        failing, and when no worker is left or the planner falls behind. Each resolves by itself when its cause clears; acknowledging says
        you are on it and is recorded in the audit trail. Alerts reach people through each schedule&apos;s webhook and the{" "}
        <a href="#channels">channels</a> below (email, PagerDuty, Teams, Slack).
      </p>
      <AlertsView />
      <AlertChannels />
    </section>
  );
}
