"use client";
// The Teams page: the caller's teams with its role in each; a team's admin (and the global admin) sees the members
// and sets or removes a member's role (PUT /api/teams/:id/members, audited), and shares the team's objects with
// other teams (team-shares-section.tsx).
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { teamsQuery, type TeamRow } from "./teams-queries";
import { TeamCodeExecutionSection } from "./team-code-execution-section";
import { TeamSharesSection } from "./team-shares-section";
import { useCan } from "../ui/use-can";

const ROLES = ["viewer", "operator", "admin", "auditor"] as const;

export function TeamsPanel() {
  const { data, error, isLoading } = useQuery(teamsQuery());
  if (isLoading) return <p className="muted">Loading teams…</p>;
  if (error) return <p className="error">Could not load teams: {error.message}</p>;
  const teams = data?.teams ?? [];
  if (teams.length === 0) return <p className="muted">You belong to no team yet: ask an admin to add you to one.</p>;
  return (
    <div data-testid="teams">
      {teams.map((t) => (
        <TeamCard key={t.id} team={t} />
      ))}
    </div>
  );
}

function TeamCard({ team }: { team: TeamRow }) {
  // Only the global admin (the one "admin" role outside teams) changes a team's code execution.
  const globalAdmin = useCan("administer");
  return (
    <section className="card" data-testid="team-card" data-team={team.name} style={{ marginBottom: 16 }}>
      <h2>
        {team.name} <span className="pill muted">you: {team.yourRole}</span>
      </h2>
      {team.description && <p className="muted">{team.description}</p>}
      {team.members && (
        <>
          <table className="table" data-testid="team-members">
            <thead>
              <tr>
                <th>Member</th>
                <th>Role</th>
                <th>Set by</th>
              </tr>
            </thead>
            <tbody>
              {team.members.map((m) => (
                <tr key={m.userId} data-testid="team-member" data-email={m.email}>
                  <td>{m.email}</td>
                  <td>{m.role}</td>
                  <td className="muted">{m.source === "sso" ? "single sign-on" : "an admin"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <MemberForm teamId={team.id} />
        </>
      )}
      <TeamSharesSection teamId={team.id} canEdit={team.yourRole === "admin"} />
      <TeamCodeExecutionSection teamId={team.id} canEdit={globalAdmin} />
    </section>
  );
}

function MemberForm({ teamId }: { teamId: string }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<string>("viewer");
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  async function save(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await fetchJson(`/api/teams/${teamId}/members`, {
        method: "PUT",
        json: { email: email.trim(), role: role === "remove" ? null : role },
      });
      setEmail("");
      await qc.invalidateQueries({ queryKey: ["teams"] });
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className="row" style={{ gap: 8, marginTop: 8 }} onSubmit={save} data-testid="team-member-form">
      <label>
        Email <input value={email} onChange={(e) => setEmail(e.target.value)} required type="email" />
      </label>
      <label>
        Role{" "}
        <select value={role} onChange={(e) => setRole(e.target.value)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
          <option value="remove">remove from team</option>
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Set
      </button>
      {error && (
        <span className="error" role="alert">
          {error instanceof ApiError && error.fields?.email ? error.fields.email : error.message}
        </span>
      )}
    </form>
  );
}
