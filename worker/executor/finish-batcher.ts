// Records attempt outcomes in batches: an outcome is written at once when the worker is quiet, otherwise
// (linger.ts) a few ms later or with the write in progress, together with everything that arrived
// meanwhile: under load, one statement records many outcomes (successes nobody waits on, whatever the overlap
// policy or group: core/runs/finish/finish-free-runs.ts) and one transaction the rest.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../../core/db/pool";
import { finishRuns, type FinishRequest, type FinishResult } from "../../core/runs/finish/finish-run";
import { finishFreeRuns } from "../../core/runs/finish/finish-free-runs";
import type { JobSettler } from "./job-settler";
import { afterLinger } from "../lib/linger";

const MAX_BATCH = 64;

interface Pending {
  req: FinishRequest;
  resolve: (r: FinishResult) => void;
  reject: (err: unknown) => void;
}

export class FinishBatcher {
  private queue: Pending[] = [];
  private writing = false;
  private lastWriteEndPerf = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    private readonly hotPool: pg.Pool,
    private readonly boss: PgBoss,
    private readonly settler: JobSettler,
  ) {}

  /** Resolves once the outcome is committed (its job then settled in the background). */
  submit(req: FinishRequest): Promise<FinishResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        afterLinger(this.lastWriteEndPerf, () => void this.write());
      }
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const rest = await this.recordPlain(this.queue.splice(0, MAX_BATCH));
      if (rest.length === 0) continue;
      try {
        await this.recordLocked(rest);
      } catch (err) {
        if (rest.length === 1) {
          rest[0]!.reject(err);
          continue;
        }
        // One bad outcome must not hold back the others: record them one by one.
        for (const p of rest) await this.recordLocked([p]).catch((e) => p.reject(e));
      }
    }
    this.lastWriteEndPerf = performance.now();
    this.writing = false;
  }

  /** Successes nobody waits on in one statement; returns the outcomes it did not record (all of them if it failed). */
  private async recordPlain(batch: Pending[]): Promise<Pending[]> {
    let results: (FinishResult | undefined)[];
    try {
      results = await finishFreeRuns(
        this.hotPool,
        batch.map((p) => p.req),
      );
    } catch {
      return batch; // nothing was committed: the locked path records them (and reports its own errors)
    }
    return batch.filter((p, i) => {
      const r = results[i];
      if (!r) return true;
      this.settler.settle(r.settle);
      p.resolve(r);
      return false;
    });
  }

  private async recordLocked(batch: Pending[]): Promise<void> {
    const results = await withTransaction(
      (tx) =>
        finishRuns(
          tx,
          this.boss,
          batch.map((p) => p.req),
        ),
      this.pool,
    );
    batch.forEach((p, i) => {
      this.settler.settle(results[i]!.settle);
      p.resolve(results[i]!);
    });
  }
}
