"use client";
// Retention on the Workers page: how long each kind of history is kept (the settings the workers apply), what the
// last retention pass did, and the day partitions of the history tables.
import { useQuery } from "@tanstack/react-query";
import { formatInZone } from "../ui/time-format";
import { retentionQuery } from "./workers-queries";

const days = (n: number) => (n === 0 ? "forever" : `${n} day${n === 1 ? "" : "s"}`);

export function RetentionSettings() {
  const { data, error, isLoading } = useQuery(retentionQuery());
  if (isLoading) return <p className="muted">Loading retention…</p>;
  if (error) return <p className="error">Could not load retention: {error.message}</p>;
  const r = data!;
  const s = r.settings;
  const logs = s.runsDays === 0 ? s.logsDays : s.logsDays === 0 ? s.runsDays : Math.min(s.logsDays, s.runsDays);
  const rows: [string, string, string, string][] = [
    [
      "Finished runs, attempts, events",
      days(s.runsDays),
      "VIGIL_RETENTION_RUNS_DAYS",
      `${r.schedulesWithOverride} schedule(s) set their own`,
    ],
    ["Handler logs", days(logs), "VIGIL_RETENTION_LOGS_DAYS", "never longer than the runs"],
    ["ctx.once markers", days(s.onceMarkersDays), "VIGIL_RETENTION_ONCE_MARKERS_DAYS", "and only once their run is gone"],
    ["Resolved alerts, webhook deliveries", days(s.alertsDays), "VIGIL_RETENTION_ALERTS_DAYS", ""],
    ["Sign-in attempts", days(s.loginAttemptsDays), "VIGIL_RETENTION_LOGIN_ATTEMPTS_DAYS", "sessions go when they expire"],
    ["Daily summaries", days(s.summariesDays), "VIGIL_RETENTION_SUMMARIES_DAYS", "outlive the runs"],
    ["pg-boss finished jobs", days(s.jobsDays), "VIGIL_RETENTION_JOBS_DAYS", ""],
    ["Audit trail", "forever", "—", "append-only, hash-chained; never pruned"],
  ];
  const last = r.lastPass;
  return (
    <div data-testid="retention-settings">
      <table className="table">
        <thead>
          <tr>
            <th>History</th>
            <th>Kept</th>
            <th>Setting</th>
            <th>Note</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([what, kept, env, note]) => (
            <tr key={what}>
              <td>{what}</td>
              <td data-testid={`retention-${env}`}>{kept}</td>
              <td className="mono small">{env}</td>
              <td className="muted small">{note}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">
        {r.settingsFrom === "worker" ? "As applied by the workers" : "From this console's environment (no retention pass yet)"}; a pass runs
        every {s.everySeconds} s in one worker at a time, deleting{" "}
        <span data-testid="retention-pacing">
          {s.batchSize} runs a statement and pausing {s.pauseRatio ?? 0}× each statement&apos;s time (at most {s.maxPauseMs ?? 0} ms) before
          the next
          {s.yieldToRuns === "off"
            ? ""
            : ", each statement in a gap between the schedules' firings (none just due and waiting to start, no backlog being drained)"}
        </span>{" "}
        (<code>VIGIL_RETENTION_BATCH_SIZE</code>, <code>VIGIL_RETENTION_PAUSE_RATIO</code>, <code>VIGIL_RETENTION_MAX_PAUSE_MS</code>,{" "}
        <code>VIGIL_RETENTION_YIELD_TO_RUNS</code>),{" "}
        <span data-testid="retention-wal">
          writing{" "}
          {s.maxWalMbPerSecond === "auto" || s.maxWalMbPerSecond === undefined
            ? `at most half the WAL a second the server's checkpoint settings take (auto${last?.walBoundMbPerSecond ? `: ${last.walBoundMbPerSecond} MB/s` : ""})`
            : s.maxWalMbPerSecond
              ? `at most ${s.maxWalMbPerSecond} MB of WAL a second`
              : "WAL at no set rate"}
          , its own commits with synchronous_commit {s.synchronousCommit ?? "off"}
        </span>{" "}
        (<code>VIGIL_RETENTION_MAX_WAL_MB_PER_S</code>, <code>VIGIL_RETENTION_SYNCHRONOUS_COMMIT</code>).{" "}
        {r.server && (
          <span data-testid="retention-server">
            The database server: max_wal_size {r.server.maxWalSize}, wal_compression {r.server.walCompression}, checkpoint_timeout{" "}
            {r.server.checkpointTimeout} (see the README&apos;s &quot;Retention&quot; for what a pass needs).{" "}
          </span>
        )}
        {last &&
          (last.error ? (
            <span className="error">
              Last pass ({last.workerId}, {formatInZone(last.startedAt)}) failed: {last.error}
            </span>
          ) : (
            <span>
              Last pass {formatInZone(last.finishedAt)} by {last.workerId}: {last.runs ?? 0} runs expired
              {last.partitionsDropped.length > 0 ? `, partitions dropped: ${last.partitionsDropped.join(", ")}` : ""} ({last.durationMs} ms
              {last.pausedMs ? `, of which ${last.pausedMs} ms paused between batches` : ""}
              {last.yieldedMs ? ` (${last.yieldedMs} ms of it waiting for gaps between firings)` : ""}).
            </span>
          ))}{" "}
        {r.partitions.map((p) => `${p.table}: ${p.count} day partitions (${p.oldest} … ${p.newest})`).join("; ")}
      </p>
    </div>
  );
}
