import { WorkersTable } from "@/components/workers/workers-table";

export default function WorkersPage() {
  return (
    <section>
      <h1>Workers</h1>
      <p className="muted">Every worker process registers here and heartbeats on the database clock; a worker silent for longer than the dead-after window is shown dead.</p>
      <WorkersTable />
    </section>
  );
}
