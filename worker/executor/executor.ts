// The executor: a bounded set of isolated slots (one warm thread each) that run claimed attempts,
// stop them on timeout, cancel, takeover, self-fencing or drain, and record their outcomes.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "../../core/log";
import type { ClaimedRun } from "../../core/runs/claim/claim-run";
import type { HeartbeatAnswer } from "../../core/runs/reap/heartbeat-runs";
import { Attempt, type AttemptDeps } from "./attempt";
import { RunLogWriter } from "./run-log-writer";
import { FinishBatcher } from "./finish-batcher";
import { JobSettler } from "./job-settler";
import { ThreadPool } from "./thread-pool";
import type { ThreadData } from "./thread-protocol";

const EARLY_CANCEL_MEMORY_MS = 10_000;
/** Time kept at the end of a drain to abort, terminate and record what is still running. */
const DRAIN_RESERVE_MS = 3000;

export interface ExecutorOptions {
  pool: pg.Pool;
  /** For the one-statement outcome writes (core/db/pool.ts createHotPathPool). */
  hotPool: pg.Pool;
  boss: PgBoss;
  workerId: string;
  concurrency: number;
  databaseUrl: string;
  /** Which handler modules every thread loads. */
  threadData: ThreadData;
  log: Logger;
  /** A slot became free (a thread is idle again): the dispatcher may fetch. */
  onSlotFree: () => void;
  /** No thread can start any more (worker/executor/thread-pool.ts): the worker cannot run anything. */
  onFatal?: (err: Error) => void;
}

export class Executor {
  private readonly attempts = new Map<string, Attempt>();
  private readonly earlyCancels = new Map<string, number>();
  private readonly threads: ThreadPool;
  private readonly logs: RunLogWriter;
  private reserved = 0;
  private exiting = false;

  constructor(private readonly opts: ExecutorOptions) {
    // The database URL is the same for every task: each thread gets it once, at its start.
    this.threads = new ThreadPool(opts.concurrency, opts.log, opts.onSlotFree, opts.onFatal, undefined, {
      ...opts.threadData,
      databaseUrl: opts.databaseUrl,
    });
    this.logs = new RunLogWriter(opts.pool, opts.log);
    this.settler = new JobSettler(opts.boss, opts.log);
    this.finisher = new FinishBatcher(opts.pool, opts.hotPool, opts.boss, this.settler);
    this.attemptDeps = {
      pool: opts.pool,
      boss: opts.boss,
      workerId: opts.workerId,
      log: opts.log,
      threads: this.threads,
      logs: this.logs,
      finisher: this.finisher,
      givingUp: () => this.exiting,
    };
  }

  /** Settles pg-boss jobs after their claim or outcome committed (shared with the dispatcher). */
  readonly settler: JobSettler;
  /** Records attempt outcomes; the dispatcher's steps carry the ones it holds for them. */
  readonly finisher: FinishBatcher;
  private readonly attemptDeps: AttemptDeps;

  start(): Promise<void> {
    return this.threads.start();
  }

  /** How many attempts this worker runs at once. */
  capacity(): number {
    return this.threads.size;
  }

  /** Idle threads not yet promised to a fetched job. */
  freeSlots(): number {
    return Math.max(0, this.threads.idleCount() - this.reserved);
  }

  /** Promises up to n slots to jobs about to be fetched; returns how many were reserved. */
  reserve(n: number): number {
    const k = Math.min(n, this.freeSlots());
    this.reserved += k;
    return k;
  }

  /**
   * Gives back k reserved slots. fetchAgain: whether that is a reason to fetch now — yes when a fetched
   * job did not start (more may be waiting behind it); no when a fetch came back short (the queue is
   * empty: fetching again at once would spin on empty fetches until work arrives) or failed.
   */
  unreserve(k: number, fetchAgain: boolean): void {
    this.reserved = Math.max(0, this.reserved - k);
    if (k > 0 && fetchAgain) this.opts.onSlotFree();
  }

  runningCount(): number {
    return this.attempts.size;
  }

  /** Runs a claimed attempt on a reserved slot. */
  begin(run: ClaimedRun, jobId: string): void {
    this.reserved = Math.max(0, this.reserved - 1);
    const thread = this.threads.take();
    if (!thread) throw new Error("executor has no idle thread for a reserved slot");
    const attempt = new Attempt(this.attemptDeps, run, jobId, thread);
    this.attempts.set(run.runId, attempt);
    void attempt.done.then(() => {
      if (this.attempts.get(run.runId) === attempt) this.attempts.delete(run.runId);
    });
    attempt.start();
    const early = this.earlyCancels.get(run.runId);
    if (early !== undefined) {
      this.earlyCancels.delete(run.runId);
      if (performance.now() - early < EARLY_CANCEL_MEMORY_MS) this.cancel(run.runId);
    }
  }

  /** A cancel for a run of this worker: abort now, terminate after its grace. */
  cancel(runId: string): boolean {
    const a = this.attempts.get(runId);
    if (!a) {
      // The NOTIFY can overtake our own claim's bookkeeping by a few ms: remember it briefly.
      this.earlyCancels.set(runId, performance.now());
      for (const [id, at] of this.earlyCancels) if (performance.now() - at > EARLY_CANCEL_MEMORY_MS) this.earlyCancels.delete(id);
      return false;
    }
    a.stop("cancel", a.run.graceSeconds * 1000);
    return true;
  }

  /**
   * Runs to heartbeat now. An attempt younger than minAgeMs is left out: its claim stamped its heartbeat
   * moments ago, and short runs (most of them) then never cost a heartbeat write.
   */
  heartbeatTargets(minAgeMs = 0): { runId: string; attempt: number }[] {
    const bornBefore = performance.now() - minAgeMs;
    return [...this.attempts.values()]
      .filter((a) => a.wantsHeartbeat() && a.startedPerf <= bornBefore)
      .map((a) => ({ runId: a.run.runId, attempt: a.run.attempt }));
  }

  /** Applies the database's answer to a heartbeat sent at sentPerf. */
  onHeartbeat(answer: HeartbeatAnswer, sentPerf: number): void {
    for (const id of answer.alive) {
      const a = this.attempts.get(id);
      if (a) a.lastHeartbeatOkPerf = Math.max(a.lastHeartbeatOkPerf, sentPerf);
    }
    for (const id of answer.cancelRequested) this.cancel(id);
    for (const id of answer.lost) {
      const a = this.attempts.get(id);
      // Someone else ended this run (reaper, direct cancel): the handler must not go on.
      if (a && (a.phase === "running" || a.phase === "stopping")) {
        this.opts.log.warn({ runId: id }, "run is no longer ours; stopping its handler");
        a.stop("lost", 0);
      }
    }
  }

  /** Self-fencing: kills every handler whose run has not heartbeated since before cutoffPerf. */
  fenceStale(cutoffPerf: number): number {
    let n = 0;
    for (const a of this.attempts.values()) {
      if ((a.phase === "running" || a.phase === "stopping") && a.lastHeartbeatOkPerf < cutoffPerf) {
        a.stop("fence", 0);
        n++;
      }
    }
    return n;
  }

  /** Drain: let running attempts finish until shortly before the deadline, then abort and terminate them. */
  async stop(deadlinePerf: number): Promise<void> {
    const settle = (until: number) =>
      Promise.race([
        Promise.all([...this.attempts.values()].map((a) => a.done)),
        new Promise((r) => setTimeout(r, Math.max(0, until - performance.now()))),
      ]);
    await settle(deadlinePerf - DRAIN_RESERVE_MS);
    const left = Math.max(0, deadlinePerf - performance.now() - 1500);
    for (const a of this.attempts.values()) if (a.phase === "running") a.stop("drain", Math.min(a.run.graceSeconds * 1000, left));
    await settle(deadlinePerf);
    // Terminating a thread does not end its child processes: none may outlive the worker's stop.
    for (const a of this.attempts.values()) a.killProcessGroupNow();
    this.exiting = true;
    await this.logs.stop().catch((err) => this.opts.log.warn({ err }, "handler logs not flushed"));
    await this.settler.stop();
    await this.threads.stop();
  }
}
