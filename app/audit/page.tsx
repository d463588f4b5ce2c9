import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditView } from "@/components/audit/audit-view";

export const metadata: Metadata = { title: "Audit · Vigil" };

export default function Page() {
  return (
    <section>
      <h1>Audit trail</h1>
      <p className="muted">
        Every operator and system action, newest first. The database refuses edits and deletions, and each row is chained to the one before
        it by hash — Verify re-checks the whole chain.
      </p>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <AuditView />
      </Suspense>
    </section>
  );
}
