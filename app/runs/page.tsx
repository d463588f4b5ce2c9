import { Suspense } from "react";
import { RunsView } from "@/components/runs/runs-view";

export default function RunsPage() {
  return (
    <section>
      <h1>Runs</h1>
      <p className="muted">
        Every planned firing and what became of it. Runs in flight and zombies come first; open a run for its full trace.
      </p>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <RunsView />
      </Suspense>
    </section>
  );
}
