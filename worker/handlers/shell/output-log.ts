// A child's stdout and stderr as run log lines: split into lines per stream (a chunk may end mid-line or
// mid-character), stderr at warn, bounded per attempt by bytes and lines with one visible marker line
// where it was cut. Output past the cap is still read (a child blocked on a full pipe would hang) but
// dropped; the last stderr lines are kept regardless, for the error message of a failed command.
// The run's secrets are taken out of each line before it is counted, cut or kept (see redact below).
import { StringDecoder } from "node:string_decoder";
import type { HandlerLogLevel } from "../../../core/handlers/handler-context.ts";

type Stream = "stdout" | "stderr";

/** A line longer than this is cut into pieces rather than buffered without bound. */
const MAX_LINE_CHARS = 8 * 1024;
const STDERR_TAIL_LINES = 5;
const STDERR_TAIL_CHARS = 300;

export class OutputLog {
  bytesSeen = 0;
  bytesShown = 0;
  linesShown = 0;
  truncated = false;
  readonly stderrTail: string[] = [];
  private readonly partial: Record<Stream, string> = { stdout: "", stderr: "" };
  private readonly decoders: Record<Stream, StringDecoder> = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  private readonly log: (level: HandlerLogLevel, message: string) => void;
  private readonly maxBytes: number;
  private readonly maxLines: number;
  private readonly redact: (text: string) => string;
  /** Characters of an over-long line kept back at a cut: a secret's longest form minus one. */
  private readonly holdBack: number;

  constructor(
    log: (level: HandlerLogLevel, message: string) => void,
    maxBytes: number,
    maxLines: number,
    redact: { (text: string): string; longestForm?: number } = (t) => t,
  ) {
    this.log = log;
    this.maxBytes = maxBytes;
    this.maxLines = maxLines;
    this.redact = redact;
    this.holdBack = Math.max(0, (redact.longestForm ?? 0) - 1);
  }

  write(stream: Stream, chunk: Buffer): void {
    this.bytesSeen += chunk.length;
    // Past the cap only stderr is still decoded, for its last lines.
    if (this.truncated && stream === "stdout") return;
    const pieces = (this.partial[stream] + this.decoders[stream].write(chunk)).split("\n");
    let rest = pieces.pop()!;
    for (const line of pieces) this.line(stream, line);
    // With secrets, a cut waits for a whole further piece, so a line written a byte at a time is not scanned per byte.
    if (rest.length > MAX_LINE_CHARS + this.holdBack + (this.holdBack > 0 ? MAX_LINE_CHARS : 0)) {
      // Redacted before it is cut, so a secret across the cut is still whole when matched; what stays back is
      // long enough that a secret starting before the cut and ending in the next chunk is not cut either.
      rest = this.redact(rest);
      while (rest.length > MAX_LINE_CHARS + this.holdBack) {
        this.line(stream, rest.slice(0, MAX_LINE_CHARS));
        rest = rest.slice(MAX_LINE_CHARS);
      }
    }
    this.partial[stream] = rest;
  }

  /** The streams ended: the last lines without a newline count too. */
  end(): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = this.partial[stream] + this.decoders[stream].end();
      this.partial[stream] = "";
      if (rest !== "") this.line(stream, rest);
    }
  }

  private line(stream: Stream, raw: string): void {
    // PostgreSQL text cannot hold NUL: one in a line (a binary, a /proc file) would lose the attempt's whole batch of logs.
    const whole = this.redact(raw);
    const line = (whole.endsWith("\r") ? whole.slice(0, -1) : whole).replaceAll("\0", "\\0");
    if (stream === "stderr" && line.trim() !== "") {
      this.stderrTail.push(line.slice(0, STDERR_TAIL_CHARS));
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    }
    if (this.truncated) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.bytesShown + bytes > this.maxBytes || this.linesShown >= this.maxLines) {
      this.truncated = true;
      this.log(
        "warn",
        `output truncated after ${this.bytesShown} bytes (${this.linesShown} lines): the rest of stdout and stderr is discarded ` +
          `(limits: ${this.maxBytes} bytes, ${this.maxLines} lines per attempt)`,
      );
      return;
    }
    this.bytesShown += bytes;
    this.linesShown++;
    this.log(stream === "stderr" ? "warn" : "info", line);
  }
}
