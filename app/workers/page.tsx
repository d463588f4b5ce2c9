import { WorkersTable } from "@/components/workers/workers-table";
import { HandlersTable } from "@/components/workers/handlers-table";
import { RetentionSettings } from "@/components/workers/retention-settings";
import { GroupsTable } from "@/components/workers/groups-table";

export default function WorkersPage() {
  return (
    <section>
      <h1>Workers</h1>
      <p className="muted">
        Every worker process registers here and heartbeats on the database clock; a worker silent for longer than the dead-after window is
        shown dead.
      </p>
      <WorkersTable />
      <h2>Handlers</h2>
      <p className="muted">
        The job types schedules can use: the built-ins and those workers loaded from a handlers folder (<code>VIGIL_HANDLERS</code>). A run
        goes only to a worker that serves its handler; with none live, it waits and the schedule alerts.
      </p>
      <HandlersTable />
      <h2 id="groups">Concurrency groups</h2>
      <p className="muted">
        Limits shared by every schedule of a group and held across all workers: how many of its runs may run at once, and how many may start
        per window (the start-rate limit). A run over a limit waits, and its page says for what.
      </p>
      <GroupsTable />
      <h2>Retention</h2>
      <p className="muted">
        How long history is kept. Runs still planned, queued, running, retrying or zombie are never removed, whatever their age; daily
        summaries per schedule outlive the runs (schedule page, <code>/api/metrics</code>). See the README, &quot;Retention&quot;.
      </p>
      <RetentionSettings />
    </section>
  );
}
