import { TeamsPanel } from "@/components/teams/teams-panel";

export default function TeamsPage() {
  return (
    <section>
      <h1>Teams</h1>
      <p className="muted">
        Every schedule, calendar, secret, alert channel and concurrency group belongs to a team; you see and change only what your role in
        its team allows. A team&apos;s admin sets its members here.
      </p>
      <TeamsPanel />
    </section>
  );
}
