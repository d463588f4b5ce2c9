"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import { formatInZone } from "../ui/time-format";
import { sessionsQuery, type SessionView } from "./admin-queries";

function SessionRow({ session }: { session: SessionView }) {
  const qc = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => fetchJson(`/api/auth/sessions/${session.id}`, { method: "DELETE" }),
    onSuccess: () => {
      // Ending the session this page uses signs this browser out.
      if (session.current) window.location.href = "/login";
      else void qc.invalidateQueries({ queryKey: ["auth", "sessions"] });
    },
  });
  return (
    <tr data-testid="session-row" data-current={session.current}>
      <td>
        {session.userAgent ?? "unknown browser"}
        {session.current && (
          <span className="pill info" style={{ marginLeft: 6 }}>
            this browser
          </span>
        )}
      </td>
      <td>{session.ip ?? "—"}</td>
      <td className="muted">{formatInZone(session.createdAt)}</td>
      <td className="muted">{formatInZone(session.lastSeenAt)}</td>
      <td className="muted">{formatInZone(session.expiresAt)}</td>
      <td>
        <button
          type="button"
          className="danger"
          disabled={revoke.isPending}
          onClick={() => {
            if (!session.current || window.confirm("End the session of this browser? You will have to sign in again.")) revoke.mutate();
          }}
        >
          {session.current ? "Sign out here" : "Revoke"}
        </button>
        {revoke.error && <div className="field-error">{revoke.error.message}</div>}
      </td>
    </tr>
  );
}

/** The signed-in user's own console sessions: any browser still signed in as them, and where from. */
export function SessionsPanel() {
  const { data, error } = useQuery(sessionsQuery());
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Your sessions</h2>
      {error && <p className="error">{error.message}</p>}
      <table className="table" aria-labelledby="sessions-heading">
        <thead>
          <tr>
            <th>Browser</th>
            <th>Address</th>
            <th>Signed in</th>
            <th>Last seen</th>
            <th>Expires</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {data?.sessions.map((s) => (
            <SessionRow key={s.id} session={s} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
