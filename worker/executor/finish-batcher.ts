// Records attempt outcomes in batches: an outcome is written at once when the worker is quiet, otherwise
// (linger.ts) a few ms later or with the write in progress, together with everything that arrived
// meanwhile: under load, one statement records many outcomes (successes nobody waits on, whatever the overlap
// policy or group: core/runs/finish/finish-free-runs.ts) and one transaction the rest.
// While the dispatcher is working through a backed-up queue, the successes it may record in one statement are held for
// it instead (holdForStep): its next take carries them, and they are recorded in the same call and commit as the take
// and the claim (core/runs/step/run-step.ts). Held outcomes it does not take within STEP_WAIT_MS are written here as usual.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../../core/db/pool";
import { finishRuns, type FinishRequest, type FinishResult } from "../../core/runs/finish/finish-run";
import { finishFreeRuns, mayFinishFree } from "../../core/runs/finish/finish-free-runs";
import type { JobSettler } from "./job-settler";
import { afterLinger } from "../lib/linger";

const MAX_BATCH = 64;
/** How long a held outcome waits for the dispatcher's next take before it is written on its own. */
const STEP_WAIT_MS = 25;

/** The dispatcher, while it takes from a backed-up queue: it carries held outcomes in its next step. */
export interface OutcomeStepper {
  /** Whether a step will run soon (the queue is backed up): outcomes may wait for it. */
  stepSoon(): boolean;
  /** Outcomes are held for the step. */
  poke(): void;
}

/** Outcomes handed to a step. */
export interface HeldOutcomes {
  readonly reqs: readonly FinishRequest[];
}

interface Handed extends HeldOutcomes {
  pending: Pending[];
}

interface Pending {
  req: FinishRequest;
  resolve: (r: FinishResult) => void;
  reject: (err: unknown) => void;
}

export class FinishBatcher {
  private queue: Pending[] = [];
  private writing = false;
  private lastWriteEndPerf = -Infinity;
  private held: Pending[] = [];
  private heldTimer: NodeJS.Timeout | undefined;
  private stepper: OutcomeStepper | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly hotPool: pg.Pool,
    private readonly boss: PgBoss,
    private readonly settler: JobSettler,
  ) {}

  /** The dispatcher whose steps may carry outcomes. */
  setStepper(stepper: OutcomeStepper): void {
    this.stepper = stepper;
  }

  /** Resolves once the outcome is committed (its job then settled in the background, or completed in the step). */
  submit(req: FinishRequest): Promise<FinishResult> {
    return new Promise((resolve, reject) => {
      const p = { req, resolve, reject };
      if (this.stepper?.stepSoon() && mayFinishFree(req)) {
        this.held.push(p);
        this.heldTimer ??= setTimeout(() => {
          this.heldTimer = undefined;
          this.enqueue(this.held.splice(0));
        }, STEP_WAIT_MS);
        this.stepper.poke();
        return;
      }
      this.enqueue([p]);
    });
  }

  /** The held outcomes, handed to a step (at most MAX_BATCH); afterStep must follow with what it recorded. */
  takeHeld(): HeldOutcomes {
    const pending = this.held.splice(0, MAX_BATCH);
    if (this.held.length === 0) {
      clearTimeout(this.heldTimer);
      this.heldTimer = undefined;
    }
    const handed: Handed = { reqs: pending.map((p) => p.req), pending };
    return handed;
  }

  /**
   * What a step did with the outcomes takeHeld handed it (results in the same order, undefined: not recorded; null: the
   * step failed; completedJobs: the jobs it completed): the recorded ones resolve (their jobs settled unless the step
   * completed them), the rest are written here as usual.
   */
  afterStep(handed: HeldOutcomes, results: readonly (FinishResult | undefined)[] | null, completedJobs: ReadonlySet<string>): void {
    const rest: Pending[] = [];
    (handed as Handed).pending.forEach((p, i) => {
      const r = results?.[i];
      // Not recorded: written here as usual; a job the step completed is not settled again.
      if (!r) return void rest.push(p.req.jobId && completedJobs.has(p.req.jobId) ? { ...p, req: { ...p.req, jobId: null } } : p);
      this.settler.settle(r.settle);
      p.resolve(r);
    });
    this.enqueue(rest);
  }

  private enqueue(ps: Pending[]): void {
    if (ps.length === 0) return;
    this.queue.push(...ps);
    if (!this.writing) {
      this.writing = true;
      afterLinger(this.lastWriteEndPerf, () => void this.write());
    }
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
