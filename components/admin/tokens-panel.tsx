"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { formatInZone } from "../ui/time-format";
import { ROLES, tokensQuery, type Role, type TokenView } from "./admin-queries";
import { describeScopes, scopesForRole, TOKEN_SCOPES, type TokenScope } from "@/core/auth/token-scopes";

function NewTokenForm() {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("operator");
  // Empty: the server's default lifetime (VIGIL_TOKEN_TTL_DAYS).
  const [days, setDays] = useState("");
  // Empty: every team of its creator.
  const [team, setTeam] = useState("");
  // None ticked: everything its role allows.
  const [scopes, setScopes] = useState<TokenScope[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      fetchJson<{ token: TokenView; secret: string }>("/api/tokens", {
        method: "POST",
        json: {
          name,
          role,
          ...(days.trim() ? { expiresInDays: Number(days) } : {}),
          ...(team.trim() ? { team: team.trim() } : {}),
          scopes: scopes.filter((s) => scopesForRole(role).includes(s)),
        },
      }),
    onSuccess: (r) => {
      setSecret(r.secret);
      setName("");
      void qc.invalidateQueries({ queryKey: ["admin", "tokens"] });
    },
  });
  const fields = create.error instanceof ApiError ? (create.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSecret(null);
    create.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New API token" noValidate>
      <h2 style={{ marginTop: 0 }}>New API token</h2>
      <div className="grid-2">
        <FormField label="Token name" hint="What uses it, e.g. deploy-pipeline." error={fields.name}>
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </FormField>
        <FormField label="Token role" hint="It stops working if you lose this role or your account is disabled." error={fields.role}>
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </FormField>
        <FormField label="Expires in (days)" hint="Leave empty for the default lifetime." error={fields.expiresInDays}>
          <input inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} placeholder="default" />
        </FormField>
        <FormField label="Team" hint="The one team it acts for (name). Leave empty for every team you act in." error={fields.team}>
          <input value={team} onChange={(e) => setTeam(e.target.value)} placeholder="every team" />
        </FormField>
      </div>
      <fieldset aria-label="Token scopes" style={{ border: 0, padding: 0, margin: "8px 0" }}>
        <legend>What it may do</legend>
        <p className="muted" style={{ margin: "4px 0" }}>
          Tick none for everything its role allows.
        </p>
        {scopesForRole(role).map((s) => (
          <label key={s} className="check-row" style={{ margin: "4px 0" }}>
            <input
              type="checkbox"
              checked={scopes.includes(s)}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
            />
            <span>
              <code>{s}</code> <span className="muted">— {TOKEN_SCOPES[s].description}</span>
            </span>
          </label>
        ))}
        {fields.scopes && <div className="field-error">{fields.scopes}</div>}
      </fieldset>
      {create.error && !Object.keys(fields).length && (
        <p className="error" role="alert">
          {create.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={create.isPending}>
        Create token
      </button>
      {secret && (
        <div className="card" role="status" style={{ marginTop: 12, borderColor: "var(--warn)" }} data-testid="token-secret">
          <strong>Copy this token now — it is shown only once.</strong>
          <div className="row" style={{ marginTop: 8 }}>
            <code style={{ wordBreak: "break-all" }}>{secret}</code>
            <button type="button" onClick={() => void navigator.clipboard?.writeText(secret)}>
              Copy
            </button>
          </div>
          <p className="muted">
            Send it as <code>Authorization: Bearer &lt;token&gt;</code>.
          </p>
        </div>
      )}
    </form>
  );
}

const STATE_LABEL: Record<TokenView["state"], string> = {
  active: "active",
  revoked: "revoked",
  expired: "expired",
  owner_inactive: "creator disabled or lost the role",
};

function TokenRow({ token }: { token: TokenView }) {
  const qc = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => fetchJson(`/api/tokens/${token.id}`, { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["admin", "tokens"] }),
  });
  return (
    <tr data-testid={`token-row-${token.name}`}>
      <td>{token.name}</td>
      <td>
        <code>{token.prefix}…</code>
      </td>
      <td>{token.role}</td>
      <td data-testid="token-can">
        <div>{token.team ? `team ${token.team.name} only` : "every team of its creator"}</div>
        <ul className="muted" style={{ margin: 0, paddingLeft: 16 }}>
          {describeScopes(token.scopes).map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      </td>
      <td className="muted">
        {token.createdBy ?? "—"}
        <div>{formatInZone(token.createdAt)}</div>
      </td>
      <td className="muted" data-testid="token-last-used">
        {token.lastUsedAt ? formatInZone(token.lastUsedAt) : "never"}
      </td>
      <td className="muted" data-testid="token-expires">
        {formatInZone(token.expiresAt)}
      </td>
      <td>
        {token.state !== "active" && (
          <span className="pill muted" title={token.revokedAt ? formatInZone(token.revokedAt) : undefined} data-testid="token-state">
            {STATE_LABEL[token.state]}
          </span>
        )}
        {token.revokedAt ? null : (
          <button
            type="button"
            className="danger"
            disabled={revoke.isPending}
            onClick={() => {
              if (window.confirm(`Revoke the token "${token.name}"? Anything using it stops working at once.`)) revoke.mutate();
            }}
          >
            Revoke
          </button>
        )}
        {revoke.error && <div className="field-error">{revoke.error.message}</div>}
      </td>
    </tr>
  );
}

export function TokensPanel() {
  const { data, error } = useQuery(tokensQuery());
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      {error && <p className="error">{error.message}</p>}
      <table className="table" aria-labelledby="tokens-heading">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Role</th>
            <th>May do</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {data?.tokens.map((t) => (
            <TokenRow key={t.id} token={t} />
          ))}
          {data && data.tokens.length === 0 && (
            <tr>
              <td colSpan={8} className="muted">
                No API tokens yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div style={{ marginTop: 16 }}>
        <NewTokenForm />
      </div>
    </section>
  );
}
