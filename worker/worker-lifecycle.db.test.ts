import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";
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

  it("drains and exits when the process that started it dies (SIGKILL), instead of running on orphaned", async () => {
    const parent = spawn(process.execPath, ["--import", "tsx", "test/worker-parent.ts", db.url], { stdio: ["ignore", "pipe", "inherit"] });
    const parentExited = new Promise((resolve) => parent.on("exit", resolve));
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    let workerPid = 0;
    try {
      const lines = readline.createInterface({ input: parent.stdout! });
      workerPid = await new Promise<number>((resolve) =>
        lines.on("line", (l) => /^worker pid (\d+)$/.test(l) && resolve(Number(l.split(" ")[2]))),
      );
      const id = await waitFor(
        "the worker to register",
        async () =>
          (await c.query("SELECT id FROM workers WHERE pid = $1 AND state = 'running'", [workerPid])).rows[0]?.id as string | undefined,
        { timeoutMs: 30_000 },
      );
      parent.kill("SIGKILL");
      await parentExited;
      const gone = () => {
        // Reparented to an init that may not reap it at once: a zombie has exited too.
        try {
          return fs.readFileSync(`/proc/${workerPid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
        } catch {
          return true;
        }
      };
      await waitFor("the orphaned worker to exit", gone, { timeoutMs: 20_000 });
      const row = (await c.query("SELECT state, stopped_at FROM workers WHERE id = $1", [id])).rows[0];
      expect(row.state).toBe("stopped");
      expect(row.stopped_at).not.toBeNull();
    } finally {
      await c.end();
      parent.kill("SIGKILL");
      if (workerPid) {
        try {
          process.kill(workerPid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
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
