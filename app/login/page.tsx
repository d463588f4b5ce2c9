import type { Metadata } from "next";
import { LoginForm } from "@/components/admin/login-form";

export const metadata: Metadata = { title: "Sign in · Vigil" };

/** Only same-site paths: `?next=https://evil.example` must not turn sign-in into an open redirect. */
function safeNext(next: string | string[] | undefined): string {
  const n = Array.isArray(next) ? next[0] : next;
  if (!n || !n.startsWith("/") || n.startsWith("//") || n.startsWith("/\\") || n.startsWith("/login")) return "/";
  return n;
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next } = await searchParams;
  return (
    <section style={{ maxWidth: 380, margin: "48px auto" }}>
      <h1>Sign in to Vigil</h1>
      <p className="muted">Use the account an admin gave you. Automation uses API tokens instead.</p>
      <LoginForm next={safeNext(next)} />
    </section>
  );
}
