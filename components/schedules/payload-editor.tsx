"use client";
import { useMemo } from "react";
import { FormField } from "../ui/form-field";
import { checkPayload, type JsonSchema } from "./json-schema-check";
import type { HandlerView } from "./schedules-queries";

interface Props {
  handlers: HandlerView[];
  handler: string;
  payloadText: string;
  onHandler: (name: string, examplePayload: string) => void;
  onPayload: (text: string) => void;
  errors: Record<string, string>;
  /** The handler is fixed (a one-run payload override): shown, not chosen. */
  handlerLocked?: boolean;
}

function typeLabel(s: JsonSchema): string {
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeLabel).join(" | ");
  return Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any");
}

/** A starting payload: each field's default, else a typed placeholder for required fields. */
export function examplePayload(schema: JsonSchema | undefined): string {
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(schema?.properties ?? {})) {
    if (s.default !== undefined) out[k] = s.default;
    else if (schema?.required?.includes(k))
      out[k] = s.type === "integer" || s.type === "number" ? 1 : s.type === "boolean" ? false : s.enum ? s.enum[0] : "";
  }
  return JSON.stringify(out, null, 2);
}

function handlerHint(h: HandlerView | undefined) {
  if (!h) return "The job type this schedule runs: a built-in, or one a worker loaded from your handlers folder.";
  const where = h.builtin ? "built-in" : `from ${h.source}`;
  if (h.liveWorkers === 0) {
    return (
      <span className="warn-text" data-testid="handler-unavailable">
        ⚠ No live worker serves {h.name} ({where}): its runs will wait, and alert, until a worker that loads it starts. {h.description}
      </span>
    );
  }
  const versions = h.liveVersions > 1 ? ` — ${h.liveVersions} different versions live (a deploy in progress?)` : "";
  return `${h.description} (${where}; ${h.liveWorkers} live worker${h.liveWorkers === 1 ? "" : "s"}${versions})`;
}

/** Handler picker, the handler's payload fields, and a JSON editor checked live against its schema. */
export function PayloadEditor({ handlers, handler, payloadText, onHandler, onPayload, errors, handlerLocked = false }: Props) {
  const spec = handlers.find((h) => h.name === handler);
  const problems = useMemo(() => checkPayload(payloadText, spec?.payloadSchema), [payloadText, spec]);
  const serverPayloadErrors = Object.entries(errors).filter(([k]) => k === "payload" || k.startsWith("payload."));
  const fields = Object.entries(spec?.payloadSchema.properties ?? {});
  const required = new Set(spec?.payloadSchema.required ?? []);

  return (
    <fieldset className="fieldset" data-testid="payload-editor">
      <legend>What it runs</legend>
      <FormField label="Handler" testId="field-handler" error={errors["handler"]} hint={handlerHint(spec)}>
        <select
          value={handler}
          disabled={handlerLocked}
          onChange={(e) => onHandler(e.target.value, examplePayload(handlers.find((h) => h.name === e.target.value)?.payloadSchema))}
        >
          <option value="">Choose a handler…</option>
          {[true, false].map((live) => {
            const group = handlers.filter((h) => h.liveWorkers > 0 === live);
            if (group.length === 0) return null;
            return (
              <optgroup key={String(live)} label={live ? "Served by a live worker" : "No live worker (runs would wait)"}>
                {group.map((h) => (
                  <option key={h.name} value={h.name}>
                    {live ? h.name : `${h.name} — unavailable`}
                  </option>
                ))}
              </optgroup>
            );
          })}
        </select>
      </FormField>
      {spec && (
        <div className="payload-fields">
          <div className="muted small">Payload fields of {spec.name}</div>
          {fields.length === 0 ? (
            <div className="muted small">This handler takes no payload fields: use {"{}"}.</div>
          ) : (
            <table className="table compact" data-testid="payload-fields">
              <tbody>
                {fields.map(([k, s]) => (
                  <tr key={k}>
                    <td className="mono">{k}</td>
                    <td className="mono muted">{typeLabel(s)}</td>
                    <td>
                      {required.has(k) && s.default === undefined ? (
                        <span className="pill warn">required</span>
                      ) : (
                        <span className="muted">optional{s.default !== undefined ? `, default ${JSON.stringify(s.default)}` : ""}</span>
                      )}
                    </td>
                    <td className="muted">{s.description ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <FormField
        label="Payload (JSON)"
        testId="field-payload"
        error={serverPayloadErrors.map(([k, v]) => (k === "payload" ? v : `${k.slice(8)}: ${v}`)).join("; ") || undefined}
        hint={
          problems.length === 0 ? (
            <span className="ok-text">✓ fits the handler&apos;s schema (the server checks again on save)</span>
          ) : (
            <span className="warn-text" data-testid="payload-problems">
              ⚠ {problems.map((p) => p.message).join("; ")}
            </span>
          )
        }
      >
        <textarea
          rows={Math.min(12, Math.max(4, payloadText.split("\n").length + 1))}
          value={payloadText}
          onChange={(e) => onPayload(e.target.value)}
          spellCheck={false}
        />
      </FormField>
      <p className="muted small" data-testid="payload-secrets-hint">
        Credentials: write <code>{'{"$secret": "NAME"}'}</code> where a token or password goes; an admin stores the value under Admin →
        Secrets and only the worker reads it, at run time.
      </p>
    </fieldset>
  );
}
