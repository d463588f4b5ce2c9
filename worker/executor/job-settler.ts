// Settles pg-boss jobs after the transaction that decided their fate has committed, many per call.
// A job's state matters only to pg-boss (retention, expiry): the run's own row is the truth. So a
// settle lost in a crash costs nothing but an 'active' job that pg-boss later expires.
import type { PgBoss } from "pg-boss";
import type { Logger } from "../../core/log";
import { RUN_QUEUE } from "../../core/queue/boss";
import { afterLinger } from "./linger";

const CHUNK = 500;
const MAX_TRIES = 5;

export class JobSettler {
  private completes: string[] = [];
  private fails: string[] = [];
  private flushing: Promise<void> | null = null;
  private again = false;
  private tries = 0;
  private lastFlushEndPerf = -Infinity;

  constructor(
    private readonly boss: PgBoss,
    private readonly log: Logger,
  ) {}

  settle(s: { jobId: string; how: "complete" | "fail" } | null): void {
    if (!s) return;
    (s.how === "complete" ? this.completes : this.fails).push(s.jobId);
    this.kick();
  }

  /** Flushes now when quiet, a few ms later when busy (linger.ts), or right after the flush in progress. */
  private kick(): void {
    if (this.flushing) {
      this.again = true;
      return;
    }
    this.flushing = new Promise<void>((r) => afterLinger(this.lastFlushEndPerf, r)).then(() => this.flush()).finally(() => {
      this.lastFlushEndPerf = performance.now();
      this.flushing = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async flush(): Promise<void> {
    const completes = this.completes.splice(0, CHUNK);
    const fails = this.fails.splice(0, CHUNK);
    try {
      if (completes.length > 0) await this.boss.complete(RUN_QUEUE, completes);
      if (fails.length > 0) await this.boss.fail(RUN_QUEUE, fails, { error: "the attempt failed; see the run's trace" });
      this.tries = 0;
    } catch (err) {
      if (++this.tries < MAX_TRIES) {
        this.completes.unshift(...completes);
        this.fails.unshift(...fails);
        await new Promise((r) => setTimeout(r, 100 * 2 ** this.tries));
      } else {
        this.log.warn({ err, jobs: completes.length + fails.length }, "could not settle pg-boss jobs; pg-boss will expire them");
        this.tries = 0;
      }
    }
    if (this.completes.length > 0 || this.fails.length > 0) this.again = true;
  }

  async stop(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
