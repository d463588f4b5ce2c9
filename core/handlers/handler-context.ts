// What a handler sees while it runs. The executor builds it inside the attempt's isolated thread;
// everything here is plain data or calls that cross to Postgres on connections tagged for this run.

export const HANDLER_LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type HandlerLogLevel = (typeof HANDLER_LOG_LEVELS)[number];

export interface HandlerQueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** A Postgres handle whose sessions carry application_name `vigil-run-<runId>`, so a kill can find them. */
export interface HandlerDb {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<HandlerQueryResult<R>>;
}

/** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
export interface HandlerTransactionalDb extends HandlerDb {
  transaction<T>(fn: (tx: HandlerDb) => Promise<T>): Promise<T>;
}

export type OnceOutcome<T> = { ran: true; value: T } | { ran: false };

export interface HandlerContext {
  runId: string;
  scheduleId: string;
  /** Stable across attempts and deliveries of one occurrence: the key for effects that must happen once. */
  idempotencyKey: string;
  attempt: number;
  /** Aborted at the timeout or on cancel; the thread is terminated after the grace regardless. */
  signal: AbortSignal;
  /** Stored with the run (run_logs, with the attempt) and written to the worker's process log. */
  log(level: HandlerLogLevel, message: string, fields?: Record<string, unknown>): void;
  /**
   * Runs fn at most once per key, ever: fn's writes and the key's marker commit in the same
   * transaction, so a retry or a second delivery after a commit finds the marker and skips fn.
   */
  once<T>(key: string, fn: (tx: HandlerDb) => Promise<T>): Promise<OnceOutcome<T>>;
  db: HandlerTransactionalDb;
  /**
   * Takes this run's secret values (in every form the worker recognises: lines, JSON-escaped, percent-encoded,
   * base64) out of a text. The worker redacts everything a handler reports anyway; a handler calls this before it
   * cuts a text to a length itself, or sends one where the worker does not look.
   */
  redact: { (text: string): string; readonly longestForm: number };
}
