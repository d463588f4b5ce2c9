// Writes an attempt's stage events (abort sent, terminated, …) as they happen, without ever making
// the kill wait on the database. A stage that cannot be written now stays pending and goes into the
// outcome's transaction; each is stamped by its age, so its time is right either way.
import type pg from "pg";
import type { Logger } from "../../core/log";
import type { RunEventType } from "../../core/runs/record-run-event";
import { recordStageEvents, type StageEvent } from "../../core/runs/record-stage-events";

export class StageRecorder {
  private pending: StageEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly runId: string,
    private readonly attempt: number,
    private readonly workerId: string,
    private readonly log: Logger,
  ) {}

  add(type: RunEventType, message: string, data?: Record<string, unknown>): void {
    this.pending.push({ type, attempt: this.attempt, workerId: this.workerId, message, data, atPerf: performance.now() });
    if (this.closed) return;
    this.chain = this.chain.then(() => this.writePending());
  }

  private async writePending(): Promise<void> {
    if (this.closed || this.pending.length === 0) return;
    const batch = [...this.pending];
    try {
      await recordStageEvents(this.pool, this.runId, batch);
      this.pending = this.pending.filter((e) => !batch.includes(e));
    } catch (err) {
      this.log.warn({ err, stages: batch.map((e) => e.type) }, "stage events not written yet; they go with the outcome");
    }
  }

  /** Stops background writes and returns what is still unwritten (for the outcome's transaction). */
  async drain(): Promise<StageEvent[]> {
    this.closed = true;
    await this.chain;
    return [...this.pending];
  }

  markWritten(): void {
    this.pending = [];
  }
}
