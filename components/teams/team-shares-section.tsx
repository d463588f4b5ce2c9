"use client";
// A team's shares on the Teams page: what it shares with other teams (its admins share and revoke here, audited) and
// what other teams share with it. A shared calendar is visible read-only to the teams it goes to; a shared secret,
// calendar or concurrency group may be referred to by their schedules (GET/POST /api/teams/:id/shares).
import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { calendarsQuery } from "../calendars/calendars-queries";
import { secretsQuery } from "../admin/admin-queries";
import { groupsQuery } from "../workers/workers-queries";
import { teamSharesQuery, type TeamShareRow } from "./teams-queries";

const KIND_LABELS: Record<TeamShareRow["kind"], string> = {
  calendar: "Calendar",
  secret: "Secret",
  concurrency_group: "Concurrency group",
};

function ShareObject({ share }: { share: TeamShareRow }) {
  const name = share.objectName ?? `${share.objectKey} (gone)`;
  return share.kind === "calendar" && share.objectName ? <Link href={`/calendars/${share.objectKey}`}>{name}</Link> : <>{name}</>;
}

const PICK_PROMPT: Record<TeamShareRow["kind"], string> = {
  calendar: "Pick a calendar of this team…",
  secret: "Pick a secret of this team…",
  concurrency_group: "Pick a concurrency group of this team…",
};

/** The team's own objects of each kind, as the share form offers them: a calendar by id, a secret or a group by name
 * (secrets by name only: no answer carries a value). Only the form's kind is fetched. */
function useOwnObjects(teamId: string, teamName: string, kind: TeamShareRow["kind"]): { value: string; label: string }[] | null {
  const calendars = useQuery({ ...calendarsQuery(), enabled: kind === "calendar" });
  const secrets = useQuery({ ...secretsQuery(), enabled: kind === "secret" });
  // The Workers page polls the groups every 2 s for their live counts; a picker needs the names once.
  const groups = useQuery({ ...groupsQuery(), refetchInterval: false, enabled: kind === "concurrency_group" });
  const loading = { calendar: calendars, secret: secrets, concurrency_group: groups }[kind].isPending;
  if (loading) return null;
  if (kind === "calendar")
    return (calendars.data?.calendars ?? []).filter((c) => c.teamId === teamId).map((c) => ({ value: c.id, label: c.name }));
  if (kind === "secret")
    return (secrets.data?.secrets ?? []).filter((x) => x.team === teamName).map((x) => ({ value: x.name, label: x.name }));
  return (groups.data?.groups ?? []).filter((g) => g.teamId === teamId).map((g) => ({ value: g.name, label: g.name }));
}

function ShareForm({ teamId, teamName, targets }: { teamId: string; teamName: string; targets: { id: string; name: string }[] }) {
  const qc = useQueryClient();
  const [kind, setKind] = useState<TeamShareRow["kind"]>("calendar");
  const [object, setObject] = useState("");
  const [withTeam, setWithTeam] = useState("");
  const own = useOwnObjects(teamId, teamName, kind);
  const share = useMutation({
    mutationFn: () =>
      fetchJson(`/api/teams/${teamId}/shares`, { method: "POST", json: { kind, object: object.trim(), withTeam: withTeam || null } }),
    onSuccess: async () => {
      setObject("");
      await qc.invalidateQueries({ queryKey: ["teams"] });
      await qc.invalidateQueries({ queryKey: ["calendars"] });
    },
  });
  const fields = share.error instanceof ApiError ? (share.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    share.mutate();
  };
  return (
    <form
      onSubmit={submit}
      className="row"
      style={{ gap: 8, alignItems: "flex-end", flexWrap: "wrap" }}
      data-testid="share-form"
      noValidate
    >
      <FormField label="Share a" testId="share-kind">
        <select
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as TeamShareRow["kind"]);
            setObject("");
          }}
        >
          {Object.entries(KIND_LABELS).map(([k, label]) => (
            <option key={k} value={k}>
              {label.toLowerCase()}
            </option>
          ))}
        </select>
      </FormField>
      <FormField label="Object" testId="share-object" error={fields["object"]}>
        <select value={object} onChange={(e) => setObject(e.target.value)} required>
          <option value="">
            {own === null ? "Loading…" : own.length === 0 ? `This team has no ${KIND_LABELS[kind].toLowerCase()}` : PICK_PROMPT[kind]}
          </option>
          {(own ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </FormField>
      <FormField label="With" testId="share-with" error={fields["withTeam"]}>
        <select value={withTeam} onChange={(e) => setWithTeam(e.target.value)}>
          <option value="">every team</option>
          {targets.map((t) => (
            <option key={t.id} value={t.id}>
              team {t.name}
            </option>
          ))}
        </select>
      </FormField>
      <button type="submit" className="primary" disabled={share.isPending || !object.trim()} data-testid="share-submit">
        Share
      </button>
      {share.error && !fields["object"] && !fields["withTeam"] && (
        <p className="error" role="alert">
          {share.error.message}
        </p>
      )}
    </form>
  );
}

function RevokeButton({ teamId, share }: { teamId: string; share: TeamShareRow }) {
  const qc = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => fetchJson(`/api/teams/${teamId}/shares/${share.id}`, { method: "DELETE" }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ["teams"] });
      await qc.invalidateQueries({ queryKey: ["calendars"] });
    },
  });
  return (
    <>
      <button
        type="button"
        className="danger small-button"
        disabled={revoke.isPending}
        onClick={() => revoke.mutate()}
        data-testid="revoke-share"
      >
        Revoke
      </button>
      {revoke.error && <span className="error"> {revoke.error.message}</span>}
    </>
  );
}

function SharesTable({ rows, teamId, given, canEdit }: { rows: TeamShareRow[]; teamId: string; given: boolean; canEdit: boolean }) {
  if (rows.length === 0)
    return <p className="muted">{given ? "This team shares nothing yet." : "No other team shares anything with this team."}</p>;
  return (
    <table className="table" data-testid={given ? "shares-given" : "shares-received"}>
      <thead>
        <tr>
          <th>Kind</th>
          <th>Object</th>
          <th>{given ? "Shared with" : "From team"}</th>
          <th>By</th>
          {given && canEdit && <th />}
        </tr>
      </thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.id} data-testid="share-row" data-object={s.objectName ?? s.objectKey}>
            <td>{KIND_LABELS[s.kind]}</td>
            <td>
              <ShareObject share={s} />
            </td>
            <td>{given ? (s.sharedWithTeam ?? "every team") : s.ownerTeam}</td>
            <td className="muted">{s.createdBy}</td>
            {given && canEdit && (
              <td>
                <RevokeButton teamId={teamId} share={s} />
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `canEdit`: the caller is the team's admin (or the global admin), the one the API lets share and revoke. */
export function TeamSharesSection({ teamId, canEdit }: { teamId: string; canEdit: boolean }) {
  const { data, error } = useQuery(teamSharesQuery(teamId));
  return (
    <section className="card" aria-labelledby={`shares-${teamId}`} data-testid="team-shares">
      <h3 id={`shares-${teamId}`} style={{ marginTop: 0 }}>
        Shared
      </h3>
      {error && <p className="error">{error.message}</p>}
      {data && (
        <>
          <h4>Given</h4>
          <SharesTable rows={data.given} teamId={teamId} given canEdit={canEdit} />
          {canEdit && <ShareForm teamId={teamId} teamName={data.team} targets={data.targets} />}
          <h4>Received</h4>
          <SharesTable rows={data.received} teamId={teamId} given={false} canEdit={false} />
        </>
      )}
    </section>
  );
}
