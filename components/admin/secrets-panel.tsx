"use client";
// Secrets are write-only here: a value can be set or replaced, never shown (the API has no way to read one).
// Each carries an access rule (which schedules may refer to it), shown and edited here.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { formatInZone } from "../ui/time-format";
import { usePickedTeam } from "../ui/use-picked-team";
import { secretsQuery, type SecretView } from "./admin-queries";
import { AccessFields, EditAccessForm, accessRule, accessText } from "./secret-access-fields";
import { AdminTeamSelect } from "../teams/admin-team-select";

function SetSecretForm({ name: fixedName, onDone }: { name?: string; onDone?: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(fixedName ?? "");
  const [value, setValue] = useState("");
  const [access, setAccess] = useState(accessText());
  const [team, setTeam] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      fetchJson<{ replaced: boolean }>(`/api/secrets/${encodeURIComponent(name)}`, {
        method: "PUT",
        // A replaced value keeps its rule (edited apart, with "Access…").
        json: fixedName ? { value } : { value, access: accessRule(access), ...(team ? { team } : {}) },
      }),
    onSuccess: (r) => {
      setSaved(`${name} ${r.replaced ? "replaced" : "set"}`);
      setValue("");
      if (!fixedName) {
        setName("");
        setAccess(accessText());
      }
      void qc.invalidateQueries({ queryKey: ["admin", "secrets"] });
      onDone?.();
    },
  });
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate();
  };
  const notFound = save.error instanceof ApiError && save.error.status === 404;
  return (
    <form className={fixedName ? "" : "card"} onSubmit={submit} aria-label={fixedName ? `Replace ${fixedName}` : "New secret"} noValidate>
      {!fixedName && <h2 style={{ marginTop: 0 }}>New secret</h2>}
      <div className="grid-2">
        {!fixedName && (
          <FormField
            label="Secret name"
            hint="Upper case, digits and _, e.g. BANK_API_TOKEN."
            error={fields.name ?? (notFound ? "Use upper-case letters, digits and _, starting with a letter." : undefined)}
          >
            <input value={name} onChange={(e) => setName(e.target.value.toUpperCase())} autoComplete="off" />
          </FormField>
        )}
        <FormField
          label={fixedName ? `New value for ${fixedName}` : "Value"}
          hint="Write-only: it is encrypted and never shown again."
          error={fields.value}
        >
          <input type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" />
        </FormField>
      </div>
      {!fixedName && <AdminTeamSelect value={team} onChange={setTeam} error={fields.team} testId="secret-team" />}
      {!fixedName && <AccessFields value={access} onChange={setAccess} fields={fields} />}
      {save.error && !Object.keys(fields).length && !notFound && (
        <p className="error" role="alert">
          {save.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={save.isPending || !name || !value}>
        {fixedName ? "Replace value" : "Save secret"}
      </button>
      {saved && (
        <span role="status" className="muted" style={{ marginLeft: 8 }}>
          {saved}
        </span>
      )}
    </form>
  );
}

function SecretRow({ secret }: { secret: SecretView }) {
  const qc = useQueryClient();
  const [editing, setEditing] = useState<"value" | "access" | null>(null);
  const remove = useMutation({
    mutationFn: () => fetchJson(`/api/secrets/${encodeURIComponent(secret.name)}`, { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["admin", "secrets"] }),
  });
  return (
    <tr data-testid={`secret-row-${secret.name}`}>
      <td>
        <code>{secret.name}</code>
      </td>
      <td data-testid={`secret-team-${secret.name}`}>{secret.team}</td>
      <td className="muted">{secret.usedBy.length ? secret.usedBy.join(", ") : "no schedule"}</td>
      <td data-testid={`secret-access-${secret.name}`}>
        {secret.accessSummary}
        {secret.refused.length > 0 && <div className="field-error">Refused (their runs fail): {secret.refused.join(", ")}</div>}
      </td>
      <td className="muted">
        {secret.updatedBy}
        <div>{formatInZone(secret.updatedAt)}</div>
      </td>
      <td>
        {editing === "value" ? (
          <SetSecretForm name={secret.name} onDone={() => setEditing(null)} />
        ) : editing === "access" ? (
          <EditAccessForm secret={secret} onDone={() => setEditing(null)} />
        ) : (
          <div className="row">
            <button type="button" onClick={() => setEditing("value")}>
              Replace…
            </button>
            <button type="button" onClick={() => setEditing("access")}>
              Access…
            </button>
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(`Delete the secret ${secret.name}? It cannot be recovered.`)) remove.mutate();
              }}
            >
              Delete
            </button>
          </div>
        )}
        {remove.error && <div className="field-error">{remove.error.message}</div>}
      </td>
    </tr>
  );
}

export function SecretsPanel() {
  const { data, error } = useQuery(secretsQuery(usePickedTeam()));
  return (
    <section aria-labelledby="secrets-heading">
      <h2 id="secrets-heading">Secrets</h2>
      <p className="muted">
        A payload uses one as <code>{'{"$secret": "NAME"}'}</code> wherever a string goes; only workers read the value, at run time, and
        only for the schedules its rule allows (by name or tag, optionally only with given handlers).
      </p>
      {error && <p className="error">{error.message}</p>}
      <table className="table" aria-labelledby="secrets-heading">
        <thead>
          <tr>
            <th>Name</th>
            <th>Team</th>
            <th>Used by</th>
            <th>May be used by</th>
            <th>Last changed</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          {data?.secrets.map((s) => (
            <SecretRow key={s.name} secret={s} />
          ))}
          {data && data.secrets.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                No secrets yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div style={{ marginTop: 16 }}>
        <SetSecretForm />
      </div>
    </section>
  );
}
