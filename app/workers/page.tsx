import { WorkersTable } from "@/components/workers/workers-table";
import { HandlersTable } from "@/components/workers/handlers-table";

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
    </section>
  );
}
