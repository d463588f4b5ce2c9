"use client";
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { ModalDialog } from "../ui/modal-dialog";
import { ApiError } from "../ui/fetch-json";
import { formatDuration } from "../ui/time-format";
import { LoadChart } from "./load-chart";
import { spreadLoad, type LoadSelection, type SpreadView } from "./load-queries";

const worst = (v: SpreadView["before"]) =>
  v.groups.reduce<number | null>((m, g) => (g.worstLatenessMs === null ? m : Math.max(m ?? 0, g.worstLatenessMs)), null);

/** Preview hashed minutes for a group's or tag's schedules (before vs after), choose which to keep, apply with confirmation. */
export function SpreadPanel({ selection }: { selection: LoadSelection & { by: "group" | "tag"; key: string } }) {
  const client = useQueryClient();
  const [keep, setKeep] = useState<string[]>([]);
  const [preview, setPreview] = useState<SpreadView | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const run = async (dryRun: boolean, keepIds = keep) => {
    setBusy(true);
    setError(null);
    try {
      const r = await spreadLoad({ window: selection.window, by: selection.by, key: selection.key, keep: keepIds, dryRun });
      if (dryRun) setPreview(r);
      else {
        setPreview(null);
        setConfirming(false);
        setDone(`${r.applied} schedule${r.applied === 1 ? "" : "s"} moved to their hashed minutes (audited).`);
        await client.invalidateQueries({ queryKey: ["load-forecast"] });
      }
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const toggleKeep = (id: string) => {
    const next = keep.includes(id) ? keep.filter((k) => k !== id) : [...keep, id];
    setKeep(next);
    void run(true, next);
  };

  const before = preview ? worst(preview.before) : null;
  const after = preview ? worst(preview.after) : null;
  return (
    <section className="card" aria-labelledby="spread-title" data-testid="spread-panel">
      <div className="row">
        <h2 id="spread-title" style={{ margin: 0 }}>
          Spread the {selection.by} {selection.key}
        </h2>
        <span className="spacer" />
        <button type="button" onClick={() => void run(true)} disabled={busy} data-testid="spread-preview">
          {preview ? "Preview again" : "Preview spread"}
        </button>
      </div>
      <p className="muted small">
        Each schedule gets a minute from a hash of its id (Jenkins-style): a cron at one fixed minute moves to its hashed minute, a cron on
        a step over the hour keeps its step from a hashed start, an interval keeps its period at a hashed phase. One-off triggers and
        schedules you keep stay as they are. Nothing changes until you apply.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p className="pill ok" role="status" data-testid="spread-done">
          {done}
        </p>
      )}
      {preview && (
        <>
          <p data-testid="spread-summary">
            Peak {preview.before.curve.peak.due} → <strong>{preview.after.curve.peak.due}</strong> due per minute
            {before !== null && (
              <>
                ; last start of the worst burst {formatDuration(before)} late →{" "}
                <strong>{after === null ? "none" : formatDuration(after)}</strong>
              </>
            )}
            . {preview.moved.length} schedule{preview.moved.length === 1 ? "" : "s"} would move, {preview.kept.length} stay
            {preview.kept.length === 1 ? "s" : ""}.
          </p>
          <LoadChart curve={preview.before.curve} bursts={preview.after.bursts} after={preview.after.curve} height={220} />
          <p className="muted small">Blue: before. Green: after the spread. Red marks: bursts still expected after it.</p>
          <table className="table compact" data-testid="spread-moves">
            <thead>
              <tr>
                <th>Keep</th>
                <th>Schedule</th>
                <th>Change</th>
              </tr>
            </thead>
            <tbody>
              {preview.moved.map((m) => (
                <tr key={m.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`keep ${m.name}`}
                      checked={false}
                      onChange={() => toggleKeep(m.id)}
                      disabled={busy}
                    />
                  </td>
                  <td>{m.name}</td>
                  <td>
                    {m.from} → {m.to} <span className="muted small">({m.change})</span>
                  </td>
                </tr>
              ))}
              {preview.kept.map((k) => (
                <tr key={k.id} className="muted">
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`keep ${k.name}`}
                      checked={keep.includes(k.id)}
                      disabled={busy || !keep.includes(k.id)}
                      onChange={() => toggleKeep(k.id)}
                    />
                  </td>
                  <td>{k.name}</td>
                  <td>stays: {k.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="row">
            <span className="spacer" />
            <button
              type="button"
              className="primary"
              disabled={busy || preview.moved.length === 0}
              onClick={() => setConfirming(true)}
              data-testid="spread-apply"
            >
              Apply to {preview.moved.length} schedule{preview.moved.length === 1 ? "" : "s"}…
            </button>
          </div>
        </>
      )}
      <ModalDialog
        open={confirming}
        title="Apply the spread?"
        onClose={() => setConfirming(false)}
        onSubmit={() => void run(false)}
        testId="spread-confirm"
        actions={
          <button type="submit" className="primary" disabled={busy} data-testid="spread-confirm-button">
            Edit {preview?.moved.length ?? 0} schedules
          </button>
        }
      >
        <p>
          Each schedule is edited like a save in its editor: a new revision, its not-started runs replanned, one audit entry each and one
          for the spread.
        </p>
      </ModalDialog>
    </section>
  );
}
