import { LoadView } from "@/components/load/load-view";

export default function LoadPage() {
  return (
    <section>
      <h1>Load</h1>
      <p className="muted">
        What the plan will ask of the fleet: runs due per minute over the next day or week, from the same plan the planner follows. Bursts
        mark where a concurrency group has more runs due at once than it may run, and how late the last of them should start.
      </p>
      <LoadView />
    </section>
  );
}
