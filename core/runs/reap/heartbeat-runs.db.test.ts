import { describe, expect, it } from "vitest";
import { usePoolAndBoss, useTestDatabase } from "../../../test/db";
import { enqueueRun, insertRun, insertSchedule } from "../../../test/run-fixtures";
import { jobIdFor } from "../../queue/job-id";
import { claimFreeRuns } from "../claim/claim-free-runs";
import { heartbeatRuns } from "./heartbeat-runs";

const db = useTestDatabase("heartbeat_runs");
const h = usePoolAndBoss(db);

async function runningRun(workerId = "w-hb"): Promise<string> {
  const s = await insertSchedule(h.pool, { handler: "demo.noop" });
  const id = await insertRun(h.pool, s, { kind: "manual" });
  await enqueueRun(h.pool, h.boss, id);
  const [r] = await claimFreeRuns(h.pool, [{ runId: id, attempt: 1, jobId: jobIdFor(id, 1), workerId }]);
  expect(r?.kind).toBe("start");
  return id;
}

describe("heartbeatRuns", () => {
  it("refreshes this worker's runs, reports the ones it lost, and neither waits for nor misjudges a busy run", async () => {
    const mine = await runningRun();
    const busy = await runningRun();
    const stolen = await runningRun();
    await h.pool.query(`UPDATE runs SET heartbeat_at = heartbeat_at - interval '5 seconds' WHERE id = ANY($1::uuid[])`, [[mine, busy]]);
    await h.pool.query(`UPDATE runs SET state = 'zombie' WHERE id = $1`, [stolen]);
    const holder = await h.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM runs WHERE id = $1 FOR NO KEY UPDATE`, [busy]);
      await h.pool.query(`UPDATE runs SET cancel_requested_at = now() WHERE id = $1`, [mine]);
      const answer = await heartbeatRuns(
        h.pool,
        "w-hb",
        [mine, busy, stolen].map((runId) => ({ runId, attempt: 1 })),
      );
      expect(answer).toEqual({ alive: [mine], cancelRequested: [mine], lost: [stolen] });
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const { rows } = await h.pool.query(
      `SELECT r.id, clock_timestamp() - r.heartbeat_at < interval '2 seconds' AS fresh, a.heartbeat_at IS NOT NULL AND clock_timestamp() - a.heartbeat_at < interval '2 seconds' AS attempt_fresh
         FROM runs r JOIN attempts a ON a.run_id = r.id AND a.number = r.attempt WHERE r.id = ANY($1::uuid[])`,
      [[mine, busy]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(mine)).toMatchObject({ fresh: true, attempt_fresh: true });
    expect(byId.get(busy)).toMatchObject({ fresh: false });
    // Once free, the busy run is refreshed like any other.
    expect((await heartbeatRuns(h.pool, "w-hb", [{ runId: busy, attempt: 1 }])).alive).toEqual([busy]);
  });
});
