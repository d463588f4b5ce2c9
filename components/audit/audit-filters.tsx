"use client";
import { useState, type FormEvent } from "react";
import { FormField } from "../ui/form-field";
import { KNOWN_ACTIONS, type AuditFilterValues } from "./audit-queries";

/** ISO instant → the value a datetime-local input shows (the viewer's own zone). */
function toLocalInput(iso?: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v: string): string | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

interface Props {
  value: AuditFilterValues;
  fieldErrors?: Record<string, string>;
  onApply: (f: AuditFilterValues) => void;
}

export function AuditFilters({ value, fieldErrors = {}, onApply }: Props) {
  const [f, setF] = useState({
    actor: value.actor ?? "",
    action: value.action ?? "",
    target: value.target ?? "",
    from: toLocalInput(value.from),
    to: toLocalInput(value.to),
    q: value.q ?? "",
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({
      actor: f.actor.trim() || undefined,
      action: f.action.trim() || undefined,
      target: f.target.trim() || undefined,
      from: fromLocalInput(f.from),
      to: fromLocalInput(f.to),
      q: f.q.trim() || undefined,
    });
  };
  const clear = () => {
    setF({ actor: "", action: "", target: "", from: "", to: "", q: "" });
    onApply({});
  };
  return (
    <form className="card" role="search" aria-label="Filter the audit trail" onSubmit={submit}>
      <div className="grid-3">
        <FormField label="Search" hint="Text in the action, actor, target or reason." error={fieldErrors.q}>
          <input type="search" value={f.q} onChange={set("q")} placeholder="e.g. maintenance" />
        </FormField>
        <FormField label="Actor" hint="Exactly as shown, e.g. ops@example.com or token:deploy." error={fieldErrors.actor}>
          <input value={f.actor} onChange={set("actor")} />
        </FormField>
        <FormField label="Action" error={fieldErrors.action}>
          <input value={f.action} onChange={set("action")} list="audit-actions" />
        </FormField>
        <FormField label="Target" hint="type or type:id, e.g. schedule:3f2c…" error={fieldErrors.target}>
          <input value={f.target} onChange={set("target")} />
        </FormField>
        <FormField label="From" hint="Your local time." error={fieldErrors.from}>
          <input type="datetime-local" value={f.from} onChange={set("from")} />
        </FormField>
        <FormField label="To" hint="Your local time." error={fieldErrors.to}>
          <input type="datetime-local" value={f.to} onChange={set("to")} />
        </FormField>
      </div>
      <datalist id="audit-actions">
        {KNOWN_ACTIONS.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      <div className="row">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
