"use client";
// An operator action on one run that needs a reason (cancel, re-run): the reason's state, the POST, the
// refresh of every runs query, and the error shown at the reason field. The reason is recorded in the run's
// trace and the audit log, so an empty one is refused before the round trip.
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";

/** `extra`: more body fields sent with the reason (a re-run's withDownstream). */
export function useRunAction(url: string, onDone: () => void, extra: Record<string, unknown> = {}) {
  const qc = useQueryClient();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function confirm() {
    if (reason.trim() === "") {
      setError("Say why: the reason is recorded in the run's trace and the audit log.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await fetchJson(url, { method: "POST", json: { ...extra, reason: reason.trim() } });
      await qc.invalidateQueries({ queryKey: ["runs"] });
      setReason("");
      onDone();
    } catch (err) {
      setError(err instanceof ApiError ? (err.fields?.reason ?? err.message) : (err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  // Typing again clears the last refusal: it spoke of the reason as it was.
  const editReason = (v: string) => {
    setReason(v);
    setError(null);
  };
  return { reason, setReason: editReason, error, busy, confirm };
}
