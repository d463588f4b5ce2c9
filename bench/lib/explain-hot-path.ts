// EXPLAIN (ANALYZE, BUFFERS) of the default path's two hot statements on a fan-out's own runs: right before they
// are due, the bench claims a batch of queued runs through claimFreeRuns and records their success through
// finishFreeRuns, exactly as a worker calls them, inside one transaction it rolls back (nothing it did stays, and
// the measured window starts afterwards). auto_explain, loaded into that session only, prints the plan of every
// statement inside the SQL functions as a notice.
import pg from "pg";
import { claimFreeRuns } from "../../core/runs/claim/claim-free-runs";
import { finishFreeRuns } from "../../core/runs/finish/finish-free-runs";

export async function explainHotPath(url: string, batch: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  const notices: string[] = [];
  client.on("notice", (n) => notices.push(n.message ?? ""));
  await client.connect();
  const out: string[] = [];
  try {
    await client.query("LOAD 'auto_explain'");
    for (const [k, v] of Object.entries({
      log_min_duration: "0",
      log_analyze: "on",
      log_buffers: "on",
      log_wal: "on",
      log_nested_statements: "on",
      log_timing: "on",
      log_level: "notice",
    })) {
      await client.query(`SET auto_explain.${k} = '${v}'`);
    }
    await client.query("BEGIN");
    const { rows } = await client.query<{ id: string; attempt: number }>(
      `SELECT id, attempt FROM runs WHERE state = 'queued' ORDER BY id LIMIT $1`,
      [batch],
    );
    const worker = "bench-explain";
    const section = async (title: string, f: () => Promise<unknown>) => {
      notices.length = 0;
      await f();
      out.push(`${title}:`);
      // The function's own statements (nested), not the SELECT that calls it.
      for (const n of notices.filter((m) => !/vigil_(claim|finish)_free_runs\(|WHERE state = 'queued' ORDER BY id LIMIT/.test(m)))
        out.push(...n.split("\n").map((l) => `  ${l}`));
    };
    await section(`claim of ${rows.length} runs (vigil_claim_free_runs)`, () =>
      claimFreeRuns(
        client,
        rows.map((r) => ({ runId: r.id, attempt: r.attempt + 1, jobId: "explain", workerId: worker })),
      ),
    );
    await section(`outcome of ${rows.length} runs (vigil_finish_free_runs)`, () =>
      finishFreeRuns(
        client,
        rows.map((r) => ({
          runId: r.id,
          attempt: r.attempt + 1,
          workerId: worker,
          jobId: null,
          outcome: { kind: "succeeded", result: {} },
          durationMs: 1,
        })),
      ),
    );
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    await client.end();
  }
  return out;
}
