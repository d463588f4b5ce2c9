// Settles pg-boss jobs after the transaction that decided their fate has committed, many per call.
// A job's state matters only to pg-boss (retention, expiry): the run's own row is the truth. So a
// settle lost in a crash costs nothing but an 'active' job that pg-boss later expires.
// Jobs live in one queue per handler (core/queue/boss.ts): the dispatcher tells the settler which queue
// each fetched job came from, and settles are sent per queue.
import type { PgBoss } from "pg-boss";
import type { Logger } from "../../core/log";
import { afterLinger } from "../lib/linger";

const CHUNK = 500;
const MAX_TRIES = 5;

type How = "complete" | "fail";

export class JobSettler {
  /** Queue of every fetched job not yet settled. */
  private readonly queues = new Map<string, string>();
  private pending: { jobId: string; queue: string; how: How }[] = [];
  private flushing: Promise<void> | null = null;
  private again = false;
  private tries = 0;
  private lastFlushEndPerf = -Infinity;

  constructor(
    private readonly boss: PgBoss,
    private readonly log: Logger,
  ) {}

  /** Remembers which queue a fetched job belongs to. */
  track(job: { id: string; name: string }): void {
    this.queues.set(job.id, job.name);
  }

  /** The queue of a fetched job not yet settled. */
  queueOf(jobId: string): string | undefined {
    return this.queues.get(jobId);
  }

  /** A job settled elsewhere (completed in a step, core/runs/step/run-step.ts): nothing left to send for it. */
  forget(jobId: string): void {
    this.queues.delete(jobId);
  }

  settle(s: { jobId: string; how: How } | null): void {
    if (!s) return;
    const queue = this.queues.get(s.jobId);
    if (queue === undefined) {
      this.log.warn({ jobId: s.jobId }, "asked to settle a job this worker did not fetch; pg-boss will expire it");
      return;
    }
    this.queues.delete(s.jobId);
    this.pending.push({ jobId: s.jobId, queue, how: s.how });
    this.kick();
  }

  /** Flushes now when quiet, a few ms later when busy (linger.ts), or right after the flush in progress. */
  private kick(): void {
    if (this.flushing) {
      this.again = true;
      return;
    }
    this.flushing = new Promise<void>((r) => afterLinger(this.lastFlushEndPerf, r))
      .then(() => this.flush())
      .finally(() => {
        this.lastFlushEndPerf = performance.now();
        this.flushing = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0, CHUNK);
    const groups = new Map<string, string[]>();
    for (const p of batch) {
      const key = `${p.how} ${p.queue}`;
      const ids = groups.get(key);
      if (ids) ids.push(p.jobId);
      else groups.set(key, [p.jobId]);
    }
    const done = new Set<string>();
    try {
      for (const [key, ids] of groups) {
        const [how, queue] = [key.slice(0, key.indexOf(" ")), key.slice(key.indexOf(" ") + 1)];
        if (how === "complete") await this.boss.complete(queue, ids);
        else await this.boss.fail(queue, ids, { error: "the attempt failed; see the run's trace" });
        done.add(key);
      }
      this.tries = 0;
    } catch (err) {
      const left = batch.filter((p) => !done.has(`${p.how} ${p.queue}`));
      if (++this.tries < MAX_TRIES) {
        this.pending.unshift(...left);
        await new Promise((r) => setTimeout(r, 100 * 2 ** this.tries));
      } else {
        this.log.warn({ err, jobs: left.length }, "could not settle pg-boss jobs; pg-boss will expire them");
        this.tries = 0;
      }
    }
    if (this.pending.length > 0) this.again = true;
  }

  async stop(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
