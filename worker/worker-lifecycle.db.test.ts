import { describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "../test/db";
import { startWorker } from "../test/worker-process";
import { startWarmWorker } from "../test/warm-worker";
import { waitFor } from "../test/wait-for";

const db = useTestDatabase("worker_lifecycle");

describe("worker process", () => {
  it("registers with host, pid and version, heartbeats on the database clock, and drains on SIGTERM", async () => {
    const w = startWorker(db.url, { VIGIL_HEARTBEAT_MS: "200" });
    const id = await w.workerId();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const first = (await c.query("SELECT host, pid, version, heartbeat_at FROM workers WHERE id = $1", [id])).rows[0];
      expect(first.pid).toBe(w.pid);
      expect(first.version).toMatch(/^\d+\.\d+\.\d+/);
      await waitFor("a newer heartbeat", async () => {
        const r = (await c.query("SELECT heartbeat_at FROM workers WHERE id = $1", [id])).rows[0];
        return r.heartbeat_at > first.heartbeat_at;
      });
      expect(await w.stop()).toBe(0);
      const after = (await c.query("SELECT state, stopped_at FROM workers WHERE id = $1", [id])).rows[0];
      expect(after.state).toBe("stopped");
      expect(after.stopped_at).not.toBeNull();
    } finally {
      await c.end();
      await w.kill();
    }
  });

  it("exits non-zero with a clear message when the database is unreachable", async () => {
    const w = startWorker("postgres://nobody:nothing@127.0.0.1:1/none");
    expect(await w.exited).toBe(1);
    expect(w.logs.join("\n")).toMatch(/worker failed to start/);
  });

  it("lets several workers run against one database", async () => {
    const a = startWorker(db.url);
    const b = startWorker(db.url);
    try {
      const [ia, ib] = await Promise.all([a.workerId(), b.workerId()]);
      expect(ia).not.toBe(ib);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("stays quiet when there is nothing to run: no fetch loop against an empty queue", async () => {
    // A fetch that came back empty once re-triggered the next one at once: an idle worker ran ~1,200
    // empty fetches a second. Idle now means the 1 s poll, the due timer, heartbeats and the planner.
    const w = await startWarmWorker(db.url);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const commits = async () => {
        await c.query("SELECT pg_stat_clear_snapshot()");
        return Number((await c.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0].xact_commit);
      };
      const before = await commits();
      await new Promise((r) => setTimeout(r, 4000));
      const perSecond = ((await commits()) - before) / 4;
      expect(perSecond).toBeLessThan(60);
    } finally {
      await c.end();
      await w.stop();
    }
  });
});
