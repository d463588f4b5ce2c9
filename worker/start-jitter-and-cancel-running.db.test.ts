// Two schedule settings seen through a real worker (planner, dispatcher, executor) rather than as pure functions:
// a start jitter window spreads fires that share an instant, and the cancel_running overlap policy stops the
// running occurrence when the next one is due, then starts the next one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../test/db";
import { startWarmWorker } from "../test/warm-worker";
import type { TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";
import { firesSoon } from "../test/fires-soon";
import { systemActor } from "../core/auth/roles";
import { createSchedule } from "../core/schedules/create-schedule";
import { dbNow, getPool } from "../core/db/pool";

const db = useTestDatabase("jitter_cancel_running");
let worker: TestWorker;

beforeAll(async () => {
  worker = await startWarmWorker(db.url, { VIGIL_HEARTBEAT_MS: "500" });
}, 200_000);

afterAll(async () => {
  await worker?.kill();
});

describe("start jitter, real planner and worker", () => {
  it("spreads the starts of 20 schedules due at the same instant over the 3 s window, none before its planned time", async () => {
    const pool = getPool();
    const at = new Date(Math.ceil((await dbNow()).getTime() / 1000) * 1000 + 6000);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await createSchedule(
        {
          name: `jitter-${i}`,
          handler: "demo.noop",
          payload: { records: 1 },
          trigger: { kind: "once", at: at.toISOString() },
          startJitterMs: 3000,
        },
        systemActor("test"),
      );
      ids.push(s.id);
    }
    await waitFor(
      "all 20 runs to succeed",
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) AND state = 'succeeded'`, [ids])).rows[0]
          .n === 20,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const { rows } = await pool.query<{ planned_at: Date; due_at: Date; started_at: Date }>(
      `SELECT planned_at, due_at, started_at FROM runs WHERE schedule_id = ANY($1::uuid[]) ORDER BY started_at`,
      [ids],
    );
    for (const r of rows) {
      expect(r.planned_at.getTime()).toBe(at.getTime());
      const offset = r.due_at.getTime() - r.planned_at.getTime();
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThanOrEqual(3000);
      // Started at its own jittered time: not before it, and not held back to the end of the window.
      expect(r.started_at.getTime()).toBeGreaterThanOrEqual(r.due_at.getTime());
      expect(r.started_at.getTime() - r.due_at.getTime()).toBeLessThan(1500);
    }
    // 20 uniform draws over 3 s span less than 1.5 s with a probability of about 2e-5; without jitter the
    // 20 no-op runs all start within a few hundred ms of the planned instant.
    const spread = rows.at(-1)!.started_at.getTime() - rows[0]!.started_at.getTime();
    expect(spread).toBeGreaterThanOrEqual(1500);
  });
});

describe("cancel_running overlap policy, real worker", () => {
  it("cancels the running occurrence when the next is due (requested, acknowledged, aborted, killed), then starts the next", async () => {
    const pool = getPool();
    const { trigger, fires } = firesSoon(await dbNow(), { lead: 4, count: 2, gap: 4 });
    // demo.hang ignores its abort signal: the cancel has to go all the way to killing its thread.
    const s = await createSchedule(
      {
        name: "cancel-running",
        handler: "demo.hang",
        payload: {},
        trigger,
        overlapPolicy: "cancel_running",
        timeoutSeconds: 120,
        graceSeconds: 1,
      },
      systemActor("test"),
    );
    const runAt = async (planned: Date) =>
      (
        await pool.query(`SELECT id, state, started_at, finished_at, cancel_reason FROM runs WHERE schedule_id = $1 AND planned_at = $2`, [
          s.id,
          planned,
        ])
      ).rows[0];
    await waitFor("the first occurrence to run", async () => (await runAt(fires[0]!))?.state === "running", {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const second = await waitFor(
      "the next occurrence to start",
      async () => {
        const r = await runAt(fires[1]!);
        return r?.started_at ? r : null;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const first = await runAt(fires[0]!);

    expect(first.state).toBe("cancelled");
    expect(first.cancel_reason).toContain(`superseded by run ${second.id}`);
    // The next one starts only once the cancelled one has ended: never two running at once.
    expect(second.started_at.getTime()).toBeGreaterThanOrEqual(first.finished_at.getTime());
    expect(second.started_at.getTime() - fires[1]!.getTime()).toBeLessThan(1000 + 3000);

    const { rows: events } = await pool.query<{ type: string }>(`SELECT type FROM run_events WHERE run_id = $1 ORDER BY at, id`, [
      first.id,
    ]);
    const types = events.map((e) => e.type);
    const stages = ["started", "cancel_requested", "cancel_acknowledged", "abort_sent", "killed", "cancelled"];
    expect(
      types.filter((t) => stages.includes(t)),
      types.join(", "),
    ).toEqual(stages);
    const { rows: waited } = await pool.query(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'waiting'`, [second.id]);
    expect(waited.length).toBeGreaterThan(0);
  });
});
