// Downtime with real worker processes: a worker plans (and enqueues) four fires of each schedule, is stopped
// before they are due, and a new worker starts only after all four are past their starting deadline (10 s). Per misfire
// policy exactly the documented fires run and the rest are visible as missed.
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../test/db";
import { startWorker, type TestWorker } from "../test/worker-process";
import { startWarmWorker } from "../test/warm-worker";
import { waitFor } from "../test/wait-for";
import { firesSoon } from "../test/fires-soon";
import { systemActor } from "../core/auth/roles";
import { createSchedule } from "../core/schedules/create-schedule";
import { dbNow, getPool } from "../core/db/pool";

const db = useTestDatabase("planner_misfire");
const workers: TestWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
});

describe("misfire after downtime, real workers", () => {
  it("skip: all missed; run_once: the newest runs; catch_up (2): the newest two run, one at a time", { timeout: 300_000 }, async () => {
    const pool = getPool();
    const first = await startWarmWorker(db.url, { VIGIL_HEARTBEAT_MS: "500" });
    workers.push(first);

    const { trigger, fires } = firesSoon(await dbNow(), { lead: 8, count: 4 });
    const make = (name: string, misfirePolicy: string) =>
      createSchedule(
        {
          name,
          handler: "demo.sleep",
          payload: { ms: 300 },
          trigger,
          misfirePolicy,
          catchUpLimit: 2,
          startingDeadlineSeconds: 10,
          overlapPolicy: "allow",
        },
        systemActor("test"),
      );
    const [skip, once, catchUp] = [await make("m-skip", "skip"), await make("m-once", "run_once"), await make("m-catch-up", "catch_up")];
    const ids = [skip.id, once.id, catchUp.id];
    // The first worker writes the four fires ahead of time and enqueues them (jobs exist), then goes away.
    await waitFor("the fires to be planned and enqueued", async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) AND state = 'queued'`, [
        ids,
      ]);
      return rows[0].n === 12;
    });
    expect((await dbNow()).getTime()).toBeLessThan(fires[0]!.getTime());
    expect(await first.stop()).toBe(0);

    // Down until every fire is past its 10 s starting deadline; then a new worker starts.
    await waitFor("the downtime", async () => (await dbNow()).getTime() > fires[3]!.getTime() + 11_000, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const second = startWorker(db.url, { VIGIL_HEARTBEAT_MS: "500" });
    workers.push(second);
    await waitFor(
      "the misfire decisions and the catch-up runs to finish",
      async () => {
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM runs WHERE schedule_id = ANY($1::uuid[]) AND planned_at <= $2 AND state IN ('planned', 'queued', 'running')`,
          [ids, fires[3]],
        );
        return rows[0].n === 0;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    await second.stop();

    const { rows } = await pool.query(
      `SELECT r.schedule_id, r.planned_at, r.state, r.started_at, r.finished_at,
              (SELECT count(*)::int FROM attempts a WHERE a.run_id = r.id) AS attempts,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'missed') AS missed_events
         FROM runs r WHERE r.schedule_id = ANY($1::uuid[]) AND r.planned_at <= $2 ORDER BY r.planned_at`,
      [ids, fires[3]],
    );
    const of = (id: string) => rows.filter((r) => r.schedule_id === id);
    const outcome = (id: string) =>
      of(id).map((r) => (r.state === "missed" && r.missed_events >= 1 ? "missed" : `${r.state}:${r.attempts}`));
    const expected: Record<string, string[]> = {
      [skip.id]: ["missed", "missed", "missed", "missed"],
      [once.id]: ["missed", "missed", "missed", "succeeded:1"],
      [catchUp.id]: ["missed", "missed", "succeeded:1", "succeeded:1"],
    };
    for (const id of ids.filter((x) => JSON.stringify(outcome(x)) !== JSON.stringify(expected[x]))) {
      // The run traces of a schedule that came out wrong, to tell a policy fault from a slow machine.
      const { rows: ev } = await pool.query(
        `SELECT r.planned_at, e.at, e.type, e.message FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.schedule_id = $1 ORDER BY r.planned_at, e.id`,
        [id],
      );
      console.error(ev.map((e) => `${e.planned_at.toISOString()} ${e.at.toISOString()} ${e.type} ${e.message}`).join("\n"));
    }
    for (const id of ids) expect(of(id).map((r) => r.planned_at)).toEqual(fires);
    for (const id of ids) expect(outcome(id)).toEqual(expected[id]);
    // Catch-up runs go one at a time, oldest first: the newest starts after the older one finished.
    const [older, newer] = of(catchUp.id).slice(2);
    expect(newer.started_at.getTime()).toBeGreaterThanOrEqual(older.finished_at.getTime());

    const { rows: audit } = await pool.query(
      `SELECT target_id, actor, after FROM audit_events WHERE action = 'run.missed' AND target_id = ANY($1::text[])`,
      [ids],
    );
    expect(audit.map((a) => [a.target_id, a.actor, a.after.missed, a.after.rescued]).sort()).toEqual(
      [
        [skip.id, "planner", 4, 0],
        [once.id, "planner", 3, 1],
        [catchUp.id, "planner", 2, 2],
      ].sort(),
    );
  });
});
