// Messages between the executor (main thread) and an attempt thread.
import type { HandlerLogLevel } from "../../core/handlers/handler-context";
import type { JobIdentity } from "../handlers/shell/job-identity.ts";

/** What every executor thread is started with (workerData). */
export interface ThreadData {
  /** Handler folders, files or packages to load besides the built-ins (worker/handlers/load-handlers.ts). */
  handlerSources: string[];
  /** The folder relative sources are resolved from (the worker's working directory). */
  cwd: string;
  /** Who program jobs run as (worker/handlers/shell/job-identity.ts); absent: the worker's own user. */
  jobIdentity?: JobIdentity;
  /** A thread's total memory bound (VIGIL_HANDLER_MEMORY_MB); the pool also caps its JavaScript heap at it. */
  memoryLimitMb: number;
  /** Output bytes (console, stdout, stderr, ctx.log) kept per run (VIGIL_HANDLER_OUTPUT_KB); the rest is dropped. */
  outputLimitBytes: number;
  /**
   * The database a handler's ctx.db and ctx.once reach (the worker's own): the same for every task of a thread, so it
   * is given once here rather than with each task. Absent (tests that build a pool themselves): handlers have no db.
   */
  databaseUrl?: string;
}

/** Used when the worker's settings are not given (tests that build a pool themselves). */
export const DEFAULT_THREAD_LIMITS = { memoryLimitMb: 512, outputLimitBytes: 1024 * 1024 } as const;

/** One run for a thread: only what differs between runs (what every task shares is in ThreadData, sent once). */
export interface AttemptTask {
  runId: string;
  scheduleId: string;
  idempotencyKey: string;
  attempt: number;
  handler: string;
  payload: unknown;
  /** The secrets resolved into payload (the thread holds their values anyway): redacted before any cut. Absent: none. */
  secrets?: { name: string; value: string }[];
}

export type ToThread = { type: "run"; task: AttemptTask } | { type: "abort"; reason: string };

export type FromThread =
  | { type: "ready" }
  | { type: "log"; level: HandlerLogLevel; message: string; fields: Record<string, unknown> | null }
  /** Sent once at the end of a run whose output went over the limit: what the thread dropped at the source. */
  | { type: "output_dropped"; bytes: number; writes: number; limitBytes: number }
  /**
   * A handler started a child process in its own process group (pgid = its pid): the executor SIGTERMs the
   * group at abort and SIGKILLs it when it terminates the thread (worker.terminate() does not kill children).
   * "leftovers_killed": the command exited and members of its group still alive were SIGKILLed by the thread.
   * "exited": the command exited and its group was cleaned up; the executor forgets it.
   */
  | { type: "process_group"; pgid: number; event: "started" | "leftovers_killed" | "exited" }
  | { type: "done"; ok: true; result: unknown }
  | { type: "done"; ok: false; error: string; permanent: boolean };
