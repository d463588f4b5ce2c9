"use client";
// Concurrency groups on the Workers page: each group's limits and what they hold right now (running, starts in the
// current start-rate window, runs waiting for a slot or for the rate limit); an operator sets a group's limits here
// (PATCH /api/groups/:name, audited). The button follows the role in the group's team: viewers there see none.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { ModalDialog } from "../ui/modal-dialog";
import { useCan, useCanIn } from "../ui/use-can";
import { usePickedTeam } from "../ui/use-picked-team";
import { groupsQuery, type GroupView } from "./workers-queries";

export function GroupsTable() {
  const { data, error, isLoading } = useQuery(groupsQuery(usePickedTeam()));
  const canOperate = useCan("operate");
  const canOperateIn = useCanIn("operate");
  const [editing, setEditing] = useState<GroupView | null>(null);
  if (isLoading) return <p className="muted">Loading groups…</p>;
  if (error) return <p className="error">Could not load groups: {error.message}</p>;
  const groups = data?.groups ?? [];
  if (groups.length === 0) return <p className="muted">No concurrency group yet: a schedule names one in its settings.</p>;
  return (
    <>
      <table className="table" data-testid="groups-table">
        <thead>
          <tr>
            <th>Group</th>
            <th>Team</th>
            <th>Concurrency limit</th>
            <th>Start-rate limit</th>
            <th>Running now</th>
            <th>Starts in window</th>
            <th>Waiting</th>
            <th>Schedules</th>
            {canOperate && <th />}
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => {
            const full = g.startRateLimit && g.startsInWindow !== null && g.startsInWindow >= g.startRateLimit.maxStarts;
            return (
              <tr key={g.name} data-testid="group-row" data-group={g.name}>
                <td className="mono">{g.name}</td>
                <td data-testid="group-team">{g.team}</td>
                <td data-testid="group-concurrency">{g.concurrencyLimit} at once</td>
                <td data-testid="group-rate">
                  {g.startRateLimit ? (
                    `${g.startRateLimit.maxStarts} per ${g.startRateLimit.perSeconds} s`
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td data-testid="group-running">
                  {g.running}
                  {g.running >= g.concurrencyLimit && <span className="pill warn">full</span>}
                </td>
                <td data-testid="group-window">
                  {g.startsInWindow === null ? (
                    <span className="muted">—</span>
                  ) : (
                    <>
                      {g.startsInWindow} of {g.startRateLimit!.maxStarts} {full && <span className="pill warn">full</span>}
                    </>
                  )}
                </td>
                <td data-testid="group-waiting">
                  {g.waitingForSlot + g.waitingForRate === 0 ? (
                    <span className="muted">0</span>
                  ) : (
                    <>
                      {g.waitingForRate > 0 && (
                        <span className="pill info" data-testid="group-waiting-rate" title={`waiting: rate limit of ${g.name}`}>
                          {g.waitingForRate} for the rate limit
                        </span>
                      )}{" "}
                      {g.waitingForSlot > 0 && (
                        <span className="pill info" data-testid="group-waiting-slot">
                          {g.waitingForSlot} for a slot
                        </span>
                      )}
                    </>
                  )}
                </td>
                <td>{g.schedules}</td>
                {canOperate && (
                  <td>
                    {canOperateIn(g.teamId) && (
                      <button type="button" onClick={() => setEditing(g)} data-testid="group-edit">
                        Set limits…
                      </button>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {editing && <GroupLimitsDialog group={editing} onClose={() => setEditing(null)} />}
    </>
  );
}

function GroupLimitsDialog({ group, onClose }: { group: GroupView; onClose: () => void }) {
  const qc = useQueryClient();
  const [concurrency, setConcurrency] = useState(String(group.concurrencyLimit));
  const [limited, setLimited] = useState(group.startRateLimit !== null);
  const [maxStarts, setMaxStarts] = useState(String(group.startRateLimit?.maxStarts ?? 10));
  const [perSeconds, setPerSeconds] = useState(String(group.startRateLimit?.perSeconds ?? 1));
  const [reason, setReason] = useState("");
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = error instanceof ApiError ? (error.fields ?? {}) : {};
  // Sent as typed: the server says what is wrong with a value (a number field left empty is sent as text).
  const num = (s: string) => (s.trim() !== "" && Number.isFinite(Number(s)) ? Number(s) : s);

  async function save() {
    setBusy(true);
    setError(null);
    try {
      await fetchJson(`/api/groups/${encodeURIComponent(group.name)}`, {
        method: "PATCH",
        json: {
          concurrencyLimit: num(concurrency),
          startRateLimit: limited ? { maxStarts: num(maxStarts), perSeconds: num(perSeconds) } : null,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        },
      });
      await qc.invalidateQueries({ queryKey: ["groups"] });
      onClose();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <ModalDialog
      open
      title={`Limits of group ${group.name}`}
      onClose={onClose}
      onSubmit={() => void save()}
      testId="group-limits-dialog"
      actions={
        <button type="submit" className="primary" disabled={busy} data-testid="group-limits-save">
          Save limits
        </button>
      }
    >
      <p className="muted">
        Shared by the {group.schedules} schedule{group.schedules === 1 ? "" : "s"} of the group and held across all workers. A new
        start-rate limit counts the starts already made in its window. Audited.
      </p>
      <FormField label="Concurrency limit (runs at once)" error={fields["concurrencyLimit"]} testId="group-concurrency-input">
        <input type="number" value={concurrency} onChange={(e) => setConcurrency(e.target.value)} />
      </FormField>
      <label style={{ display: "inline-flex", gap: 6, alignItems: "center", margin: "4px 0 8px" }}>
        <input type="checkbox" checked={limited} onChange={(e) => setLimited(e.target.checked)} data-testid="group-rate-enabled" />
        Limit starts per window (start-rate limit)
      </label>
      {limited && (
        <div className="row">
          <FormField
            label="At most (starts)"
            error={fields["startRateLimit.maxStarts"] ?? fields["startRateLimit"]}
            testId="group-max-starts"
          >
            <input type="number" value={maxStarts} onChange={(e) => setMaxStarts(e.target.value)} />
          </FormField>
          <FormField label="Per (seconds)" error={fields["startRateLimit.perSeconds"]} testId="group-per-seconds">
            <input type="number" value={perSeconds} onChange={(e) => setPerSeconds(e.target.value)} />
          </FormField>
        </div>
      )}
      <FormField label="Reason (optional)" error={fields["reason"]} hint="Kept in the audit trail.">
        <input value={reason} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
      </FormField>
      {error && Object.keys(fields).length === 0 && (
        <p className="error" role="alert" data-testid="group-limits-error">
          {error.message}
        </p>
      )}
    </ModalDialog>
  );
}
