import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";

export const metadata: Metadata = { title: "Admin · Vigil" };

export default function Page() {
  return (
    <section>
      <h1>Accounts, API tokens and secrets</h1>
      <p className="muted">Every change here is written to the audit trail.</p>
      <AdminPage />
    </section>
  );
}
