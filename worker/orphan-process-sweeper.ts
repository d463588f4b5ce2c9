// shell.command jobs whose worker died (SIGKILL, out of memory) keep running: nothing terminated them and
// nobody holds their process group any more. Every worker sweeps its host (what its PID namespace shows):
// a process whose environment names a run and attempt (VIGIL_RUN_ID, VIGIL_ATTEMPT — shell.command sets
// them) that is no longer running that attempt is killed with its whole group, and the run's trace says so.
// A live attempt's group is never touched: its run stays 'running' with that attempt until the group is gone;
// a run this worker's database does not know is another installation's, left alone.
import { readFile, readdir } from "node:fs/promises";
import os from "node:os";
import type pg from "pg";
import type { Logger } from "../core/log";
import { recordRunEvent } from "../core/runs/record-run-event";
import { every, type WorkerService } from "./service";

interface JobGroup {
  pgid: number;
  runId: string;
  attempt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function pgrpOf(pid: number | "self"): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp …": comm may contain spaces and parentheses; the last ")" ends it.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return f[0] === "Z" ? null : Number(f[2]);
  } catch {
    return null;
  }
}

/**
 * Process groups of shell jobs on this host, found by the run metadata in their members' environments.
 * Read asynchronously: a host with thousands of processes must not stall the worker's event loop.
 */
export async function findJobGroups(): Promise<JobGroup[]> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return []; // no /proc: nothing to sweep on this platform
  }
  const own = await pgrpOf("self");
  const groups = new Map<number, JobGroup>();
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue;
    let environ: string;
    try {
      environ = await readFile(`/proc/${name}/environ`, "latin1");
    } catch {
      continue; // another user's process, or it just ended
    }
    if (!environ.includes("VIGIL_RUN_ID=")) continue;
    let runId = "";
    let attempt = NaN;
    for (const kv of environ.split("\0")) {
      if (kv.startsWith("VIGIL_RUN_ID=")) runId = kv.slice(13);
      else if (kv.startsWith("VIGIL_ATTEMPT=")) attempt = Number(kv.slice(14));
    }
    const pgid = await pgrpOf(Number(name));
    if (!UUID.test(runId) || !Number.isInteger(attempt) || pgid === null || pgid <= 1 || pgid === own) continue;
    groups.set(pgid, { pgid, runId, attempt });
  }
  return [...groups.values()];
}

export function createOrphanProcessSweeper(opts: { pool: pg.Pool; workerId: string; intervalMs?: number; log: Logger }): WorkerService {
  const log = opts.log.child({ service: "orphan-sweeper" });
  const loop = every(
    opts.intervalMs ?? 5000,
    async () => {
      const groups = await findJobGroups();
      if (groups.length === 0) return;
      const { rows } = await opts.pool.query<{ id: string; state: string; attempt: number }>(
        `SELECT id, state, attempt FROM runs WHERE id = ANY($1::uuid[])`,
        [[...new Set(groups.map((g) => g.runId))]],
      );
      const runs = new Map(rows.map((r) => [r.id, r]));
      for (const g of groups) {
        const run = runs.get(g.runId);
        // A run this database does not know belongs to another Vigil on the same host: not ours to judge.
        if (!run || (run.state === "running" && run.attempt === g.attempt)) continue;
        try {
          process.kill(-g.pgid, "SIGKILL");
        } catch {
          continue; // gone meanwhile
        }
        log.warn(
          { runId: g.runId, attempt: g.attempt, pgid: g.pgid, runState: run.state },
          "killed the process group of a shell job whose attempt is over",
        );
        await recordRunEvent(opts.pool, {
          runId: g.runId,
          type: "sigkill_sent",
          attempt: g.attempt,
          workerId: opts.workerId,
          message: `SIGKILL sent to orphaned process group ${g.pgid} on ${os.hostname()}: attempt ${g.attempt} is over (run ${run.state}) but its processes were still running`,
          data: { pgid: g.pgid, signal: "SIGKILL", orphan: true, host: os.hostname() },
        });
      }
    },
    (err) => log.warn({ err }, "orphan process sweep failed"),
  );
  return {
    name: "orphan-process-sweeper",
    async start() {
      loop.start();
    },
    stop: () => loop.stop(),
  };
}
