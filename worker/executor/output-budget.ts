// What one run may print, counted in its thread: console.log and friends, process.stdout / stderr writes and ctx.log
// lines share one budget of bytes and lines. Over it, output is dropped where it is made, so a handler printing in a
// loop cannot fill the worker's memory with messages in flight; the run's log gets one line saying what was dropped.
// Loaded by the attempt thread with Node's type stripping: no imports.

/** Lines kept per run: the run page shows a run's log, not a firehose. */
export const MAX_LINES_PER_RUN = 1000;

export class OutputBudget {
  private usedBytes = 0;
  private lines = 0;
  droppedBytes = 0;
  droppedWrites = 0;

  readonly limitBytes: number;

  // (No parameter property: Node's type stripping, which loads this file in the thread, does not take one.)
  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** A new run starts with the whole budget. */
  reset(): void {
    this.usedBytes = this.lines = this.droppedBytes = this.droppedWrites = 0;
  }

  /**
   * The part of `text` that may be kept (its head when only part fits), or null when nothing may: the rest is
   * counted as dropped.
   */
  take(text: string): string | null {
    const bytes = Buffer.byteLength(text);
    const left = this.limitBytes - this.usedBytes;
    if (this.lines >= MAX_LINES_PER_RUN || left <= 0) {
      this.droppedBytes += bytes;
      this.droppedWrites++;
      return null;
    }
    this.lines++;
    if (bytes <= left) {
      this.usedBytes += bytes;
      return text;
    }
    // Characters are at most as many as bytes: a head of `left` characters may still be longer in bytes, so cut by bytes.
    const head = Buffer.from(text).subarray(0, left).toString("utf8");
    this.usedBytes = this.limitBytes;
    this.droppedBytes += bytes - Buffer.byteLength(head);
    this.droppedWrites++;
    return head;
  }
}
