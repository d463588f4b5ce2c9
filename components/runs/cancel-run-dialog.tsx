"use client";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { useRunAction } from "./use-run-action";

interface Props {
  runId: string;
  label: string;
  state: string;
  open: boolean;
  onClose: () => void;
}

const WHAT_HAPPENS: Record<string, string> = {
  running:
    "Its worker is told at once, aborts the handler, kills it after the grace period and ends its database sessions. Each stage shows on the run page.",
  zombie: "Its worker is gone: the run is cancelled directly and any database sessions it left are terminated.",
  retrying: "The scheduled retry will not run.",
  queued: "It will not start.",
  planned: "It will not start.",
};

/** Confirm a cancel with a reason (recorded in the run's trace and the audit log). Keyboard: Esc closes. */
export function CancelRunDialog({ runId, label, state, open, onClose }: Props) {
  const { reason, setReason, error, busy, confirm } = useRunAction(`/api/runs/${runId}/cancel`, onClose);

  return (
    <ModalDialog
      open={open}
      title={`Cancel ${label}?`}
      onClose={onClose}
      onSubmit={confirm}
      testId="cancel-dialog"
      actions={
        <button type="submit" className="danger" disabled={busy} data-testid="confirm-cancel">
          {busy ? "Cancelling…" : "Cancel the run"}
        </button>
      }
    >
      <p className="muted">
        This run is <strong>{state}</strong>. {WHAT_HAPPENS[state] ?? ""}
      </p>
      <FormField label="Reason" error={error ?? undefined} hint="Shown in the run's trace and in the audit log.">
        <input
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. stuck on the upstream API, re-running by hand"
          autoComplete="off"
        />
      </FormField>
    </ModalDialog>
  );
}
