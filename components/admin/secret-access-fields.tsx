"use client";
// A secret's access rule as three comma-separated lists: which schedules (by name or tag) may refer to it, and
// optionally which handlers only. Shared by the New secret form and a row's "Access…" editor.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import type { SecretView } from "./admin-queries";

export type AccessRule = SecretView["access"];
export interface AccessText {
  schedules: string;
  tags: string;
  handlers: string;
}

export const accessText = (a?: AccessRule): AccessText => ({
  schedules: a?.schedules.join(", ") ?? "",
  tags: a?.tags.join(", ") ?? "",
  handlers: a?.handlers.join(", ") ?? "",
});

const split = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
export const accessRule = (t: AccessText): AccessRule => ({
  schedules: split(t.schedules),
  tags: split(t.tags),
  handlers: split(t.handlers),
});

/** The three inputs; errors are the server's, keyed access.schedules / access.tags / access.handlers (with an index). */
export function AccessFields({
  value,
  onChange,
  fields,
}: {
  value: AccessText;
  onChange: (v: AccessText) => void;
  fields: Record<string, string>;
}) {
  const err = (k: string) => Object.entries(fields).find(([f]) => f === `access.${k}` || f.startsWith(`access.${k}.`))?.[1];
  return (
    <div className="grid-2">
      <FormField label="Allowed schedules" hint="Schedule names, comma-separated." error={err("schedules")}>
        <input value={value.schedules} onChange={(e) => onChange({ ...value, schedules: e.target.value })} autoComplete="off" />
      </FormField>
      <FormField label="Allowed tags" hint="Schedules with any of these tags may use it, e.g. team:payments." error={err("tags")}>
        <input value={value.tags} onChange={(e) => onChange({ ...value, tags: e.target.value })} autoComplete="off" />
      </FormField>
      <FormField label="Only handlers" hint="Optional: e.g. http.request; empty allows any handler." error={err("handlers")}>
        <input value={value.handlers} onChange={(e) => onChange({ ...value, handlers: e.target.value })} autoComplete="off" />
      </FormField>
    </div>
  );
}

/** A row's editor: replaces the rule (audited); the value is not involved. */
export function EditAccessForm({ secret, onDone }: { secret: SecretView; onDone: () => void }) {
  const qc = useQueryClient();
  const [text, setText] = useState(accessText(secret.access));
  const save = useMutation({
    mutationFn: () =>
      fetchJson(`/api/secrets/${encodeURIComponent(secret.name)}/access`, { method: "PUT", json: { access: accessRule(text) } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["admin", "secrets"] });
      onDone();
    },
  });
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Access to ${secret.name}`} noValidate>
      <AccessFields value={text} onChange={setText} fields={fields} />
      {save.error && !Object.keys(fields).length && (
        <p className="error" role="alert">
          {save.error.message}
        </p>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save access
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
