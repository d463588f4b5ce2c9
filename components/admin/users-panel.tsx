"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { formatInZone } from "../ui/time-format";
import { ROLES, usersQuery, type Role, type UserView } from "./admin-queries";

function NewUserForm() {
  const qc = useQueryClient();
  const [form, setForm] = useState({ email: "", name: "", password: "", role: "viewer" as Role });
  const create = useMutation({
    mutationFn: () => fetchJson<{ user: UserView }>("/api/users", { method: "POST", json: form }),
    onSuccess: () => {
      setForm({ email: "", name: "", password: "", role: "viewer" });
      void qc.invalidateQueries({ queryKey: ["admin", "users"] });
    },
  });
  const fields = create.error instanceof ApiError ? (create.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New user" noValidate>
      <h2 style={{ marginTop: 0 }}>New user</h2>
      <div className="grid-2">
        <FormField label="Email" error={fields.email}>
          <input type="email" autoComplete="off" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
        </FormField>
        <FormField label="Name" error={fields.name}>
          <input value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </FormField>
        <FormField label="Initial password" hint="At least 12 characters; tell it to the person out of band." error={fields.password}>
          <input
            type="password"
            autoComplete="new-password"
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </FormField>
        <FormField
          label="Role"
          hint="Viewers read; operators also act on schedules and runs; admins also manage accounts."
          error={fields.role}
        >
          <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </FormField>
      </div>
      {create.error && !Object.keys(fields).length && (
        <p className="error" role="alert">
          {create.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={create.isPending}>
        Create user
      </button>
    </form>
  );
}

function UserRow({ user }: { user: UserView }) {
  const qc = useQueryClient();
  const [resetTo, setResetTo] = useState<string | null>(null);
  const patch = useMutation({
    mutationFn: (body: Record<string, unknown>) => fetchJson(`/api/users/${user.id}`, { method: "PATCH", json: body }),
    onSuccess: () => {
      setResetTo(null);
      void qc.invalidateQueries({ queryKey: ["admin", "users"] });
    },
  });
  const endSessions = useMutation({
    mutationFn: () => fetchJson<{ ended: number }>(`/api/users/${user.id}/sessions`, { method: "DELETE" }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["admin", "users"] });
      void qc.invalidateQueries({ queryKey: ["auth", "sessions"] });
    },
  });
  return (
    <tr data-testid={`user-row-${user.email}`}>
      <td>
        {user.email}
        {user.sso && (
          <>
            {" "}
            <span className="pill muted" title="Signs in through single sign-on: the identity provider sets the role at each sign-in">
              SSO
            </span>
          </>
        )}
        {user.name && <div className="muted">{user.name}</div>}
      </td>
      <td>
        {user.roleManagedBy ? (
          <span
            data-testid="user-role-managed"
            title={`Set by ${user.roleManagedBy} at each sign-in (VIGIL_OIDC_ROLE_MAP): change the user's groups there`}
          >
            {user.role} <span className="small muted">· set by {user.roleManagedBy}</span>
          </span>
        ) : (
          <select
            aria-label={`Role of ${user.email}`}
            value={user.role}
            disabled={patch.isPending}
            onChange={(e) => patch.mutate({ role: e.target.value })}
          >
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        )}
      </td>
      <td data-testid="user-programs">
        {user.role === "admin" ? (
          <span className="muted" title="Admins may run programs on worker hosts (shell.command) by their role">
            yes (admin)
          </span>
        ) : (
          <label title="Lets an operator save, trigger and re-run schedules that run a program on a worker host (shell.command)">
            <input
              type="checkbox"
              aria-label={`${user.email} may run programs`}
              checked={user.canRunPrograms}
              disabled={patch.isPending || user.role !== "operator"}
              onChange={(e) => patch.mutate({ canRunPrograms: e.target.checked })}
            />{" "}
            {user.role === "operator" ? (user.canRunPrograms ? "granted" : "no") : "operators only"}
          </label>
        )}
      </td>
      <td>{user.disabled ? <span className="pill bad">disabled</span> : <span className="pill ok">active</span>}</td>
      <td className="muted">{formatInZone(user.createdAt)}</td>
      <td data-testid="user-sessions">{user.activeSessions}</td>
      <td>
        <div className="row" style={{ gap: 6 }}>
          <button
            type="button"
            disabled={endSessions.isPending || user.activeSessions === 0}
            onClick={() => {
              if (window.confirm(`Sign ${user.email} out everywhere? Each of their browsers has to sign in again.`)) endSessions.mutate();
            }}
          >
            End sessions
          </button>
          <button type="button" disabled={patch.isPending} onClick={() => patch.mutate({ disabled: !user.disabled })}>
            {user.disabled ? "Enable" : "Disable"}
          </button>
          {resetTo === null ? (
            <button type="button" onClick={() => setResetTo("")}>
              Reset password
            </button>
          ) : (
            <form
              className="row"
              style={{ gap: 6 }}
              onSubmit={(e) => {
                e.preventDefault();
                patch.mutate({ password: resetTo });
              }}
            >
              <input
                type="password"
                aria-label={`New password for ${user.email}`}
                autoComplete="new-password"
                value={resetTo}
                onChange={(e) => setResetTo(e.target.value)}
                style={{ width: 180 }}
              />
              <button type="submit" className="primary" disabled={patch.isPending}>
                Set
              </button>
              <button type="button" onClick={() => setResetTo(null)}>
                Cancel
              </button>
            </form>
          )}
        </div>
        {endSessions.error && (
          <div className="field-error" role="alert">
            {endSessions.error.message}
          </div>
        )}
        {patch.error && (
          <div className="field-error" role="alert">
            {patch.error instanceof ApiError && patch.error.fields ? Object.values(patch.error.fields).join(" ") : patch.error.message}
          </div>
        )}
      </td>
    </tr>
  );
}

export function UsersPanel() {
  const { data, error } = useQuery(usersQuery());
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      {error && <p className="error">{error.message}</p>}
      <table className="table" aria-labelledby="users-heading">
        <thead>
          <tr>
            <th>User</th>
            <th>Role</th>
            <th>Run programs</th>
            <th>Status</th>
            <th>Created</th>
            <th>Sessions</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {data?.users.map((u) => (
            <UserRow key={u.id} user={u} />
          ))}
          {data && data.users.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                No users yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div style={{ marginTop: 16 }}>
        <NewUserForm />
      </div>
    </section>
  );
}
