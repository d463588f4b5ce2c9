"use client";
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ModalDialog } from "../ui/modal-dialog";
import { fetchJson } from "../ui/fetch-json";
import type { AlertView } from "./alerts-queries";
import { alertKindLabel } from "./alert-severity-pill";

/** "I am on it": records who acknowledged (audited). The alert still resolves only when its cause clears. */
export function AcknowledgeButton({ alert }: { alert: AlertView }) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const client = useQueryClient();
  const ack = useMutation({
    mutationFn: () => fetchJson(`/api/alerts/${alert.id}/acknowledge`, { method: "POST", json: note.trim() ? { note: note.trim() } : {} }),
    onSuccess: async () => {
      setOpen(false);
      setNote("");
      await client.invalidateQueries({ queryKey: ["alerts"] });
    },
  });
  return (
    <>
      <button type="button" className="small-button" onClick={() => setOpen(true)} data-testid="acknowledge-alert">
        Acknowledge
      </button>
      <ModalDialog
        open={open}
        title={`Acknowledge: ${alertKindLabel(alert.kind)}`}
        onClose={() => setOpen(false)}
        onSubmit={() => ack.mutate()}
        testId="acknowledge-dialog"
        actions={
          <>
            <button type="button" onClick={() => setOpen(false)}>
              Keep open
            </button>
            <button type="submit" className="primary" disabled={ack.isPending}>
              {ack.isPending ? "Acknowledging…" : "Acknowledge"}
            </button>
          </>
        }
      >
        <p>{alert.message}</p>
        <p className="muted small">
          Acknowledging records that you are handling it (in the audit trail). The alert resolves by itself when its cause clears.
        </p>
        <div className="field">
          <label htmlFor={`ack-note-${alert.id}`}>Note (optional)</label>
          <input
            id={`ack-note-${alert.id}`}
            value={note}
            maxLength={500}
            onChange={(e) => setNote(e.target.value)}
            placeholder="e.g. restarting the worker host"
          />
        </div>
        {ack.error && (
          <p className="error" role="alert">
            {ack.error.message}
          </p>
        )}
      </ModalDialog>
    </>
  );
}
