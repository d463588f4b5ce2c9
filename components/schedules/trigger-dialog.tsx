"use client";
import Link from "next/link";
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { checkPayload } from "./json-schema-check";
import { PayloadEditor } from "./payload-editor";
import { handlersQuery } from "./schedules-queries";

interface TriggerResult {
  runId: string | null;
  replayed: boolean;
}

interface Props {
  schedule: { id: string; name: string; handler: string; payload: unknown };
  open: boolean;
  onClose: () => void;
  onTriggered: (r: TriggerResult) => void;
  /** Wording for "run again as a new occurrence" from a succeeded run's page. */
  title?: string;
  intro?: string;
  /** Send `schedule.payload` (e.g. a finished run's) even when the operator does not edit it. */
  alwaysSendPayload?: boolean;
}

/**
 * Trigger now, confirmed: a required reason (run trace + audit), and optionally this run's own payload, checked
 * live against the handler's schema with the schedule form's editor. One Idempotency-Key per opening of the
 * dialog: a double click or a retry after a dropped answer returns the same run instead of starting two.
 */
export function TriggerDialog({ schedule, open, onClose, onTriggered, title, intro, alwaysSendPayload = false }: Props) {
  const qc = useQueryClient();
  const handlers = useQuery({ ...handlersQuery(), enabled: open });
  const [reason, setReason] = useState("");
  const [override, setOverride] = useState(false);
  const [payloadText, setPayloadText] = useState(() => JSON.stringify(schedule.payload ?? {}, null, 2));
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);

  const spec = handlers.data?.handlers.find((h) => h.name === schedule.handler);
  const problems = override ? checkPayload(payloadText, spec?.payloadSchema) : [];
  const fields = error instanceof ApiError ? (error.fields ?? {}) : {};
  const reasonError = fields["reason"];

  const reset = () => {
    setReason("");
    setOverride(false);
    setPayloadText(JSON.stringify(schedule.payload ?? {}, null, 2));
    setKey(crypto.randomUUID());
    setError(null);
  };

  async function confirm() {
    if (reason.trim() === "") {
      setError(
        new ApiError(422, "validation_failed", "Say why.", {
          reason: "Say why you trigger it: the reason goes to the run's trace and the audit log.",
        }),
      );
      return;
    }
    if (problems.length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const json: Record<string, unknown> = { reason: reason.trim() };
      if (override || alwaysSendPayload) json.payload = payloadText.trim() === "" ? {} : JSON.parse(payloadText);
      const r = await fetchJson<TriggerResult>(`/api/schedules/${schedule.id}/trigger`, {
        method: "POST",
        json,
        headers: { "idempotency-key": key },
      });
      await Promise.all([
        qc.invalidateQueries({ queryKey: ["schedules"] }),
        qc.invalidateQueries({ queryKey: ["runs"] }),
        qc.invalidateQueries({ queryKey: ["overview"] }),
      ]);
      reset();
      onTriggered(r);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const general = error && !(error instanceof ApiError && Object.keys(error.fields ?? {}).length > 0) ? error.message : null;
  return (
    <ModalDialog
      open={open}
      title={title ?? `Trigger ${schedule.name} now?`}
      onClose={() => {
        reset();
        onClose();
      }}
      onSubmit={() => void confirm()}
      testId="trigger-dialog"
      actions={
        <button type="submit" className="primary" disabled={busy || problems.length > 0} data-testid="confirm-trigger">
          {busy ? "Triggering…" : "Trigger one run now"}
        </button>
      }
    >
      <p className="muted">
        {intro ??
          "One extra run, due at once, with its own idempotency key — also while the schedule is paused; its overlap policy still applies."}
      </p>
      <FormField label="Reason" error={reasonError} hint="Required. Shown in the run's trace and in the audit log.">
        <input
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            setError(null);
          }}
          placeholder="e.g. upstream fixed, settle today's batch"
          autoComplete="off"
          data-testid="trigger-reason"
        />
      </FormField>
      <label className="check-row">
        <input type="checkbox" checked={override} onChange={(e) => setOverride(e.target.checked)} data-testid="trigger-override" /> Use a
        different payload for this run only
      </label>
      {override && (
        <PayloadEditor
          handlers={handlers.data?.handlers ?? []}
          handler={schedule.handler}
          payloadText={payloadText}
          onHandler={() => undefined}
          onPayload={setPayloadText}
          errors={fields}
          handlerLocked
        />
      )}
      {general && (
        <p className="error" role="alert">
          ✕ {general}
        </p>
      )}
    </ModalDialog>
  );
}

/** The notice after a trigger: a link to the run, and whether it was new. */
export function TriggeredNotice({ r }: { r: TriggerResult }) {
  return (
    <>
      {r.replayed ? "Already triggered (same request): " : "Triggered. "}
      {r.runId && (
        <Link href={`/runs/${r.runId}`} data-testid="triggered-run-link">
          Open the new run →
        </Link>
      )}
    </>
  );
}
