"use client";
// A schedule's trigger URLs: addresses an outside system POSTs to, to start a run (docs/how-to/trigger-urls.md).
// Operators create one (its secret and a ready curl example are shown once), see when each was last used, rotate
// its secret and revoke it. Viewers do not see the section: the API answers it to operators only.
import { useState } from "react";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { TriggerUrlListing, TriggerUrlWithSecret } from "@/core/trigger-urls/trigger-url-store";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { formatInZone } from "../ui/time-format";
import { useCan } from "../ui/use-can";
import { scheduleQuery } from "./schedules-queries";
import { triggerUrlCurlExample } from "./trigger-url-example";

const triggerUrlsQuery = (scheduleId: string) =>
  queryOptions({
    queryKey: ["schedules", scheduleId, "trigger-urls"],
    queryFn: () => fetchJson<{ triggerUrls: TriggerUrlListing[] }>(`/api/schedules/${scheduleId}/hooks`),
    refetchInterval: 15_000,
  });

const origin = () => (typeof window === "undefined" ? "" : window.location.origin);

function SecretOnce({ shown, onDone }: { shown: TriggerUrlWithSecret & { rotated: boolean }; onDone: () => void }) {
  const url = `${origin()}${shown.triggerUrl.path}`;
  const example = triggerUrlCurlExample({ url, secret: shown.secret, authMode: shown.triggerUrl.authMode });
  return (
    <div className="card" role="status" style={{ borderColor: "var(--warn)" }} data-testid="trigger-url-secret">
      <strong>
        {shown.rotated ? "New secret" : "Secret"} for “{shown.triggerUrl.label}” — copy it now, it is shown only once.
      </strong>
      <dl className="kv">
        <dt>URL</dt>
        <dd>
          <code data-testid="trigger-url-address" style={{ wordBreak: "break-all" }}>
            {url}
          </code>
        </dd>
        <dt>Secret</dt>
        <dd className="row">
          <code data-testid="trigger-url-secret-value" style={{ wordBreak: "break-all" }}>
            {shown.secret}
          </code>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.secret)}>
            Copy
          </button>
        </dd>
      </dl>
      <p className="small muted" style={{ marginBottom: 4 }}>
        {shown.triggerUrl.authMode === "hmac" ? (
          <>
            Sign each delivery: <code>Vigil-Timestamp</code> is the time in unix seconds (within 5 minutes of the server), and{" "}
            <code>Vigil-Signature: v1=&lt;hex&gt;</code> is HMAC-SHA256 with this secret over <code>&lt;timestamp&gt;.&lt;body&gt;</code>. A
            repeated <code>Vigil-Delivery-Id</code> answers the first run. Try it:
          </>
        ) : (
          <>
            Send the secret as <code>Authorization: Bearer &lt;secret&gt;</code>; a repeated <code>Idempotency-Key</code> answers the first
            run. Try it:
          </>
        )}
      </p>
      <pre className="json" data-testid="trigger-url-example">
        {example}
      </pre>
      <div className="row">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(example)}>
          Copy example
        </button>
        <button type="button" onClick={onDone} data-testid="trigger-url-secret-done">
          Done, I have copied it
        </button>
      </div>
    </div>
  );
}

function NewTriggerUrl({ scheduleId, onCreated }: { scheduleId: string; onCreated: (t: TriggerUrlWithSecret) => void }) {
  const [open, setOpen] = useState(false);
  const [label, setLabel] = useState("");
  const [authMode, setAuthMode] = useState<"hmac" | "bearer">("hmac");
  const [payloadMode, setPayloadMode] = useState<"schedule" | "body">("schedule");
  const [rate, setRate] = useState("60");
  const create = useMutation({
    mutationFn: () =>
      fetchJson<TriggerUrlWithSecret>(`/api/schedules/${scheduleId}/hooks`, {
        method: "POST",
        json: { label, authMode, payloadMode, rateLimitPerMinute: Number(rate) },
      }),
    onSuccess: (t) => {
      setOpen(false);
      setLabel("");
      onCreated(t);
    },
  });
  const fields = create.error instanceof ApiError ? (create.error.fields ?? {}) : {};
  return (
    <>
      <button type="button" className="small-button" onClick={() => setOpen(true)} data-testid="new-trigger-url">
        New trigger URL…
      </button>
      <ModalDialog
        open={open}
        title="New trigger URL"
        onClose={() => setOpen(false)}
        onSubmit={() => create.mutate()}
        testId="trigger-url-dialog"
        actions={
          <button type="submit" className="primary" disabled={create.isPending} data-testid="create-trigger-url">
            Create
          </button>
        }
      >
        <p className="muted small">
          An outside system POSTs to it to start a run now, authenticated by the URL’s own secret. Schedules that run programs on a worker
          host cannot be fired this way. Audited.
        </p>
        <FormField label="Label" hint="Who or what calls it; the runs and the audit trail name it." error={fields.label}>
          <input value={label} onChange={(e) => setLabel(e.target.value)} placeholder="e.g. GitHub deploy hook" autoComplete="off" />
        </FormField>
        <div className="grid-2">
          <FormField label="Authentication" error={fields.authMode}>
            <select value={authMode} onChange={(e) => setAuthMode(e.target.value as "hmac" | "bearer")}>
              <option value="hmac">HMAC signature (recommended)</option>
              <option value="bearer">Bearer secret</option>
            </select>
          </FormField>
          <FormField label="Payload" error={fields.payloadMode}>
            <select value={payloadMode} onChange={(e) => setPayloadMode(e.target.value as "schedule" | "body")}>
              <option value="schedule">The schedule’s payload (body ignored)</option>
              <option value="body">The delivery’s JSON body (checked against the handler)</option>
            </select>
          </FormField>
        </div>
        <FormField label="Deliveries per minute" hint="More are answered 429 with Retry-After." error={fields.rateLimitPerMinute}>
          <input inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} />
        </FormField>
        {create.error && !Object.keys(fields).length && (
          <p className="error" role="alert">
            {create.error.message}
          </p>
        )}
      </ModalDialog>
    </>
  );
}

function TriggerUrlRow({ t, onRotated }: { t: TriggerUrlListing; onRotated: (t: TriggerUrlWithSecret) => void }) {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: ["schedules", t.scheduleId, "trigger-urls"] });
  const base = `/api/schedules/${t.scheduleId}/hooks/${t.id}`;
  const rotate = useMutation({
    mutationFn: () => fetchJson<TriggerUrlWithSecret>(`${base}/rotate`, { method: "POST" }),
    onSuccess: async (r) => {
      onRotated(r);
      await refresh();
    },
  });
  const revoke = useMutation({ mutationFn: () => fetchJson(base, { method: "DELETE" }), onSuccess: refresh });
  const live = t.revokedAt === null;
  const error = rotate.error ?? revoke.error;
  return (
    <tr data-testid="trigger-url-row" data-label={t.label} className={live ? undefined : "muted"}>
      <td>
        {t.label}
        <div className="small mono muted">{t.path}</div>
      </td>
      <td>
        {t.authMode === "hmac" ? "HMAC" : "bearer"} · {t.payloadMode === "body" ? "body is payload" : "schedule payload"} ·{" "}
        {t.rateLimitPerMinute}
        /min
      </td>
      <td className="small">
        {t.createdBy}
        <div className="muted">{formatInZone(t.createdAt)}</div>
      </td>
      <td className="small" data-testid="trigger-url-last-used">
        {t.lastUsedAt ? formatInZone(t.lastUsedAt) : <span className="muted">never</span>}
      </td>
      <td>
        {live ? (
          <div className="row">
            <button
              type="button"
              className="small-button"
              disabled={rotate.isPending}
              onClick={() => window.confirm(`Rotate the secret of “${t.label}”? The old secret stops working at once.`) && rotate.mutate()}
            >
              Rotate secret
            </button>
            <button
              type="button"
              className="small-button danger"
              disabled={revoke.isPending}
              onClick={() => window.confirm(`Revoke “${t.label}”? Its address will answer 404 from now on.`) && revoke.mutate()}
            >
              Revoke
            </button>
          </div>
        ) : (
          <span className="small">
            revoked {formatInZone(t.revokedAt!)} by {t.revokedBy}
          </span>
        )}
        {error && (
          <p className="error small" role="alert">
            {error.message}
          </p>
        )}
      </td>
    </tr>
  );
}

export function TriggerUrls({ scheduleId }: { scheduleId: string }) {
  const schedule = useQuery(scheduleQuery(scheduleId));
  const canOperate = useCan("operate", schedule.data?.schedule.teamId ?? "unknown");
  const q = useQuery({ ...triggerUrlsQuery(scheduleId), enabled: canOperate });
  const qc = useQueryClient();
  const [shown, setShown] = useState<(TriggerUrlWithSecret & { rotated: boolean }) | null>(null);
  if (!canOperate) return null;
  const urls = q.data?.triggerUrls ?? [];
  return (
    <section aria-labelledby="trigger-urls-title" data-testid="trigger-urls">
      <div className="row page-head">
        <h2 id="trigger-urls-title">Trigger URLs</h2>
        <span className="spacer" />
        <NewTriggerUrl
          scheduleId={scheduleId}
          onCreated={(t) => {
            setShown({ ...t, rotated: false });
            void qc.invalidateQueries({ queryKey: ["schedules", scheduleId, "trigger-urls"] });
          }}
        />
      </div>
      {shown && <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      {q.error && <p className="error">Could not load trigger URLs: {q.error.message}</p>}
      {urls.length === 0 ? (
        <p className="muted small">No trigger URL: an outside system can start this schedule only through the API with a token.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Label</th>
              <th>Mode</th>
              <th>Created</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {urls.map((t) => (
              <TriggerUrlRow key={t.id} t={t} onRotated={(r) => setShown({ ...r, rotated: true })} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
