// Handler log lines go to the process log at once (with runId, scheduleId, attempt, workerId) and
// to run_logs in small batches, so a chatty handler does not cost a round trip per line.
import type pg from "pg";
import type { Logger } from "../../core/log";
import { insertRunLogs, type RunLogLine } from "../../core/runs/insert-run-logs";

const FLUSH_EVERY_MS = 250;
const MAX_BUFFERED = 20_000;
const MAX_MESSAGE = 4000;

export class RunLogWriter {
  private buffer: RunLogLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private dropped = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  add(line: Omit<RunLogLine, "atPerf">): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.dropped++;
      return;
    }
    this.buffer.push({ ...line, message: line.message.slice(0, MAX_MESSAGE), atPerf: performance.now() });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
  }

  /** Writes everything buffered so far; a failed batch stays buffered for the next flush. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      if (this.buffer.length === 0) return;
      const batch = this.buffer;
      this.buffer = [];
      try {
        await insertRunLogs(this.pool, batch);
      } catch (err) {
        this.log.warn({ err, lines: batch.length }, "could not store handler log lines; will retry");
        this.buffer = batch.concat(this.buffer).slice(0, MAX_BUFFERED);
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS * 4);
      }
      if (this.dropped > 0) {
        this.log.warn({ dropped: this.dropped }, "handler log lines dropped: buffer full");
        this.dropped = 0;
      }
    });
    return this.flushing;
  }

  /** Flushes only if this run has lines waiting (a run without logs does not wait for others'). */
  async flushRun(runId: string): Promise<void> {
    if (this.buffer.some((l) => l.runId === runId)) await this.flush();
  }

  async stop(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
