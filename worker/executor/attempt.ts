// One attempt on one executor thread, from the claim to its recorded outcome. Every way it can end
// is explicit: the handler returns or throws; the timeout, a cancel, a drain, self-fencing or a
// takeover (reaper/direct cancel) stops it — abort first, terminate after the grace (a thread
// cannot outlive its terminate), then its database sessions are terminated — and only then is the
// outcome recorded, which is what may schedule a retry. So a retry never overlaps a live attempt.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { runLogBindings, runLogger, type Logger, type RunLogFields } from "../../core/log";
import type { ClaimedRun } from "../../core/runs/claim/claim-run";
import type { AttemptOutcome } from "../../core/runs/finish/finish-run";
import type { FinishBatcher } from "./finish-batcher";
import { parseHandlerResult } from "../../core/handlers/handler-result";
import { terminateRunSessions } from "../../core/runs/reap/terminate-run-sessions";
import type { PooledThread, ThreadEvent, ThreadPool } from "./thread-pool";
import type { RunLogWriter } from "./run-log-writer";
import { MAX_LINES_PER_RUN } from "./output-budget";
import { StageRecorder } from "./stage-recorder";
import { traceHop } from "../lib/latency-trace";
import { hasSecretRefs } from "../../core/secrets/secret-refs";
import { SecretNotAllowedError, resolvePayloadSecrets } from "../../core/secrets/resolve-secrets";
import { createRedactor, type Redactor } from "../../core/secrets/redact-secrets";

export type StopReason = "timeout" | "cancel" | "drain" | "fence" | "lost" | "memory";

export interface AttemptDeps {
  pool: pg.Pool;
  boss: PgBoss;
  workerId: string;
  log: Logger;
  threads: ThreadPool;
  logs: RunLogWriter;
  finisher: FinishBatcher;
  /** Stop retrying to record the outcome (the process is exiting). */
  givingUp: () => boolean;
}

const FINISH_HEARTBEAT_LIMIT_MS = 30_000;
/**
 * After SIGKILLing a process group, how long the thread may take to report its child gone before it is
 * terminated: the thread's event loop is what reaps that child (waitpid); terminated first, it leaves a zombie.
 */
const PROCESS_REAP_WAIT_MS = 500;
/**
 * How often a running attempt's thread is asked for its memory. The JavaScript heap is capped by the thread's own
 * resource limits, but buffers live outside it: only a look from here sees them. The question interrupts the thread
 * even in a loop that never yields, so a handler allocating as fast as it can overshoots by one interval's worth.
 */
const MEMORY_CHECK_MS = 50;
const MB = 1024 * 1024;

function formatBytes(n: number): string {
  return n >= MB ? `${(n / MB).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`;
}

export class Attempt {
  phase: "running" | "stopping" | "finishing" | "done" = "running";
  readonly startedPerf = performance.now();
  lastHeartbeatOkPerf = this.startedPerf;
  private finishingSincePerf = 0;
  private stopReason: StopReason | null = null;
  private handlerEndedPerf: number | null = null;
  private handlerOutcome: AttemptOutcome | null = null;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private logLines = 0;
  private memoryTimer: NodeJS.Timeout | undefined;
  private memoryCheckInFlight = false;
  /** What the thread held when it went over its memory bound. */
  private memoryOver: { usedBytes: number; limitBytes: number } | null = null;
  /** The process group a handler runs a child in (shell.command), while it may be alive. */
  private processGroup: number | null = null;
  private onProcessGroupGone: (() => void) | null = null;
  private processGroupKilled = false;
  /** Takes this attempt's resolved secret values out of everything it reports (null: the attempt has none). */
  private redact: Redactor | null = null;
  private logger: Logger | null = null;
  private stageRecorder: StageRecorder | null = null;
  /** The outcome is being recorded: stages added from now on go with it, not on their own. */
  private stagesClosed = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    private readonly deps: AttemptDeps,
    readonly run: ClaimedRun,
    readonly jobId: string,
    private readonly thread: PooledThread,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  /** Lines about this run (made on first use: most runs that end at once need at most one). */
  private get log(): Logger {
    return (this.logger ??= runLogger(this.deps.log, this.logFields()));
  }

  private logFields(): RunLogFields {
    const { runId, scheduleId, attempt } = this.run;
    return { runId, scheduleId, attempt, workerId: this.deps.workerId };
  }

  /** This attempt's stage events (made on first use: a run that ends by itself has none). */
  private get stages(): StageRecorder {
    if (this.stageRecorder) return this.stageRecorder;
    this.stageRecorder = new StageRecorder(this.deps.pool, this.run.runId, this.run.attempt, this.deps.workerId, this.log);
    // As an existing recorder would be: drained (closed) once the outcome is on its way.
    if (this.stagesClosed) void this.stageRecorder.drain();
    return this.stageRecorder;
  }

  start(): void {
    this.thread.attach((e) => this.onThreadEvent(e));
    this.timeoutTimer = setTimeout(() => this.stop("timeout", this.run.graceSeconds * 1000), this.run.timeoutSeconds * 1000);
    this.memoryTimer = setInterval(() => void this.checkMemory(), MEMORY_CHECK_MS);
    if (!hasSecretRefs(this.run.payload)) return this.postRun(this.run.payload);
    // Secrets are resolved here, in the worker's main thread, and only the thread sees their values.
    resolvePayloadSecrets(this.deps.pool, this.run.payload, this.run).then(
      (r) => {
        if (r.secrets.length > 0) this.redact = createRedactor(r.secrets);
        if (this.phase === "running") this.postRun(r.payload, r.secrets);
      },
      (err: Error) => this.onThreadEvent({ type: "done", ok: false, error: err.message, permanent: err instanceof SecretNotAllowedError }),
    );
  }

  /** secrets: what the thread redacts before it cuts anything to a length (a child's output lines). */
  private postRun(payload: unknown, secrets: { name: string; value: string }[] = []): void {
    traceHop("posted", [this.run.runId]);
    this.thread.post({
      type: "run",
      task: {
        runId: this.run.runId,
        scheduleId: this.run.scheduleId,
        idempotencyKey: this.run.idempotencyKey,
        attempt: this.run.attempt,
        handler: this.run.handler,
        payload,
        ...(secrets.length > 0 ? { secrets } : {}),
      },
    });
  }

  /** Ends the attempt at once when its thread holds more than its bound (heap, external memory, array buffers). */
  private async checkMemory(): Promise<void> {
    if (this.phase !== "running") return void clearInterval(this.memoryTimer);
    if (this.memoryCheckInFlight) return;
    this.memoryCheckInFlight = true;
    try {
      const s = await this.thread.worker.getHeapStatistics();
      const usedBytes = s.total_heap_size + s.external_memory;
      const limitBytes = this.deps.threads.memoryLimitBytes;
      if (usedBytes > limitBytes && this.phase === "running") {
        this.memoryOver = { usedBytes, limitBytes };
        this.log.warn({ usedMb: Math.round(usedBytes / MB), limitMb: Math.round(limitBytes / MB) }, "handler over its memory bound");
        this.stop("memory", 0);
      }
    } catch {
      // The thread is gone (it ended, crashed or was terminated): its own event says how.
    } finally {
      this.memoryCheckInFlight = false;
    }
  }

  /** Whether the worker should keep heartbeating this run. */
  wantsHeartbeat(): boolean {
    if (this.phase === "done") return false;
    return this.phase !== "finishing" || performance.now() - this.finishingSincePerf < FINISH_HEARTBEAT_LIMIT_MS;
  }

  /** Abort now; terminate after graceMs (at once if the handler already returned). */
  stop(reason: StopReason, graceMs: number): void {
    if (this.phase !== "running") {
      // A harder reason may shorten a grace already running (e.g. fencing during a cancel's grace).
      if (this.phase === "stopping" && graceMs === 0 && (reason === "fence" || reason === "lost")) this.kill();
      return;
    }
    this.phase = "stopping";
    this.stopReason = reason;
    clearTimeout(this.timeoutTimer);
    clearInterval(this.memoryTimer);
    this.thread.post({ type: "abort", reason: ABORT_REASONS[reason] });
    const graceS = graceMs / 1000;
    if (reason === "timeout") {
      this.stages.add("timed_out", `timeout of ${this.run.timeoutSeconds} s reached`, { timeoutSeconds: this.run.timeoutSeconds });
    } else if (reason === "cancel") {
      this.stages.add("cancel_acknowledged", "the owning worker received the cancel");
    }
    this.stages.add("abort_sent", `abort signal sent (${ABORT_REASONS[reason]}); terminating after ${graceS} s unless it stops`, {
      graceMs,
    });
    this.signalProcessGroup("SIGTERM", "");
    this.log.warn({ reason, graceMs }, "stopping attempt");
    if (graceMs <= 0) this.kill();
    else this.graceTimer = setTimeout(() => this.kill(), graceMs);
  }

  private onThreadEvent(raw: ThreadEvent): void {
    const e = this.redact ? this.redactEvent(this.redact, raw) : raw;
    if (e.type === "log") {
      // The thread keeps to the limit itself (output-budget.ts); this only guards the worker should it not.
      if (++this.logLines > MAX_LINES_PER_RUN) return;
      this.log[e.level === "debug" ? "debug" : e.level]({ handler: this.run.handler, ...(e.fields ?? {}) }, e.message);
      this.deps.logs.add({ runId: this.run.runId, attempt: this.run.attempt, level: e.level, message: e.message, fields: e.fields });
      return;
    }
    if (e.type === "output_dropped") {
      const message = `output limit reached (${formatBytes(e.limitBytes)} or ${MAX_LINES_PER_RUN} lines per run): ${formatBytes(e.bytes)} in ${e.writes} writes dropped`;
      this.log.warn({ handler: this.run.handler, droppedBytes: e.bytes, droppedWrites: e.writes }, message);
      this.deps.logs.add({ runId: this.run.runId, attempt: this.run.attempt, level: "warn", message, fields: { droppedBytes: e.bytes } });
      return;
    }
    if (e.type === "process_group") {
      this.onProcessGroup(e.pgid, e.event);
      return;
    }
    if (this.handlerEndedPerf !== null) return;
    this.handlerEndedPerf = performance.now();
    if (e.type === "done") {
      if (e.ok) {
        const parsed = parseHandlerResult(e.result);
        this.handlerOutcome = parsed.ok ? { kind: "succeeded", result: parsed.result } : { kind: "failed", error: parsed.error };
      } else {
        this.handlerOutcome = { kind: "failed", error: e.error, permanent: e.permanent };
      }
    } else if (e.type === "exit") {
      if (e.error) this.log.error({ error: e.error }, "executor thread crashed during the attempt");
      this.handlerOutcome = { kind: "failed", error: `executor thread died (exit code ${e.code}${e.error ? `: ${e.error}` : ""})` };
    } else {
      return;
    }
    if (this.phase === "running") {
      clearTimeout(this.timeoutTimer);
      clearInterval(this.memoryTimer);
      if (e.type === "done") this.signalProcessGroup("SIGKILL", ": the handler returned while its process group was alive");
      if (e.type === "exit") void this.afterThreadGone(false);
      else {
        this.deps.threads.release(this.thread);
        void this.finish(this.handlerOutcome);
      }
    } else if (this.phase === "stopping") {
      // It stopped within the grace: no need to wait; still terminate the thread so nothing it left behind survives.
      this.kill();
    }
  }

  private onProcessGroup(pgid: number, event: "started" | "leftovers_killed" | "exited"): void {
    if (event === "started") {
      this.processGroup = pgid;
      // The abort went out before this message arrived: the group has not had its SIGTERM yet.
      if (this.phase === "stopping") this.signalProcessGroup("SIGTERM", "");
    } else if (event === "leftovers_killed") {
      // After our own SIGKILL of the group the thread may still see members dying: not a second kill.
      if (!this.processGroupKilled)
        this.stages.add("sigkill_sent", `SIGKILL sent to leftover processes of group ${pgid} after the command exited`, {
          pgid,
          signal: "SIGKILL",
          leftovers: true,
        });
    } else if (this.processGroup === pgid) {
      this.processGroup = null;
      this.onProcessGroupGone?.();
    }
  }

  /** Signals the handler's process group, if one may be alive; records the stage when the signal was delivered. */
  private signalProcessGroup(signal: "SIGTERM" | "SIGKILL", why: string): boolean {
    const pgid = this.processGroup;
    if (pgid === null) return false;
    try {
      process.kill(-pgid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ESRCH")
        this.log.warn({ err, pgid, signal }, "could not signal the handler's process group");
      return false;
    }
    if (signal === "SIGKILL") this.processGroupKilled = true;
    this.stages.add(signal === "SIGTERM" ? "sigterm_sent" : "sigkill_sent", `${signal} sent to process group ${pgid}${why}`, {
      pgid,
      signal,
    });
    return true;
  }

  /** The worker is exiting: whatever may still be alive of the handler's process group is killed now. */
  killProcessGroupNow(): void {
    this.signalProcessGroup("SIGKILL", ": the worker is shutting down");
  }

  /** SIGKILLs the handler's process group and gives the (live) thread a moment to reap its child. */
  private async killProcessGroup(threadAlive: boolean): Promise<void> {
    if (!this.signalProcessGroup("SIGKILL", threadAlive ? " before terminating the thread" : ": its thread died") || !threadAlive) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PROCESS_REAP_WAIT_MS);
      this.onProcessGroupGone = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.onProcessGroupGone = null;
  }

  private redactEvent(redact: Redactor, e: ThreadEvent): ThreadEvent {
    switch (e.type) {
      case "log":
        return { ...e, message: redact(e.message), fields: redact(e.fields) };
      case "done":
        return e.ok ? { ...e, result: redact(e.result) } : { ...e, error: redact(e.error) };
      case "exit":
        return { ...e, error: redact(e.error) };
      default:
        return e;
    }
  }

  private kill(): void {
    if (this.phase !== "stopping") return;
    this.phase = "finishing";
    this.finishingSincePerf = performance.now();
    clearTimeout(this.graceTimer);
    void this.afterThreadGone(true);
  }

  /** Terminates the thread (if asked) and the attempt's sessions, then records the outcome. */
  private async afterThreadGone(terminate: boolean): Promise<void> {
    this.phase = "finishing";
    this.finishingSincePerf ||= performance.now();
    const stoppedItself = this.handlerEndedPerf !== null;
    // Terminating the thread does not end its child processes: the group is killed from here.
    if (this.processGroup !== null) await this.killProcessGroup(terminate);
    if (terminate) {
      this.thread.detach();
      await this.deps.threads.kill(this.thread);
      this.handlerEndedPerf ??= performance.now();
      const after = Math.round(performance.now() - this.startedPerf);
      this.stages.add(
        this.stopReason === "cancel" ? "killed" : "terminated",
        stoppedItself
          ? "handler stopped after the abort; its thread was terminated"
          : "thread terminated: the handler did not stop within the grace",
        { handlerStoppedItself: stoppedItself, attemptAgeMs: after },
      );
    }
    let sessions = -1;
    try {
      sessions = await terminateRunSessions(this.deps.pool, this.run.runId, 2000);
    } catch (err) {
      this.log.warn({ err }, "could not terminate the attempt's database sessions (the reaper will)");
    }
    if (terminate || sessions > 0) {
      this.stages.add(
        "sessions_terminated",
        sessions >= 0 ? `${sessions} database session(s) terminated` : "database unreachable: sessions not checked",
        { count: sessions },
      );
    }
    await this.finish(this.outcomeAfterStop(), performance.now());
  }

  private outcomeAfterStop(): AttemptOutcome {
    switch (this.stopReason) {
      case "timeout":
        return { kind: "timed_out", error: `timed out after ${this.run.timeoutSeconds} s` };
      case "cancel":
        return { kind: "cancelled", error: "cancelled" };
      case "drain":
        return { kind: "interrupted", error: "the worker shut down before the handler finished" };
      case "fence":
        return { kind: "interrupted", error: "the worker lost the database and stopped the handler (self-fenced)" };
      case "lost":
        return { kind: "interrupted", error: "the run was taken over (reaped or cancelled) while it ran here" };
      case "memory": {
        const over = this.memoryOver!;
        return {
          kind: "failed",
          error: `memory limit exceeded: ${Math.round(over.usedBytes / MB)} MB of ${Math.round(over.limitBytes / MB)} MB`,
        };
      }
      default:
        return this.handlerOutcome ?? { kind: "failed", error: "the attempt ended without an outcome" };
    }
  }

  /** Records the outcome; endedPerf is when the attempt really ended (handler returned, or killed). */
  private async finish(outcome: AttemptOutcome, endedPerf = this.handlerEndedPerf ?? performance.now()): Promise<void> {
    this.phase = "finishing";
    this.finishingSincePerf ||= performance.now();
    const durationMs = (this.handlerEndedPerf ?? endedPerf) - this.startedPerf;
    // Its log lines go in before its outcome, so the run page never shows an ended run missing lines.
    await this.deps.logs.flushRun(this.run.runId);
    for (let i = 0; ; i++) {
      try {
        this.stagesClosed = true;
        const pendingEvents = this.stageRecorder ? await this.stageRecorder.drain() : [];
        const r = await this.deps.finisher.submit({
          runId: this.run.runId,
          attempt: this.run.attempt,
          workerId: this.deps.workerId,
          jobId: this.jobId,
          outcome,
          durationMs,
          endedAgoMs: performance.now() - endedPerf,
          pendingEvents,
        });
        this.stageRecorder?.markWritten();
        const finished = {
          outcome: outcome.kind,
          state: r.state,
          recorded: r.recorded,
          durationMs: Math.round(durationMs),
          nextAttemptAt: r.nextAttemptAt,
        };
        // A run that ended by itself has had no other line: one line with its fields, no child logger.
        if (this.logger) this.logger.info(finished, "attempt finished");
        else this.deps.log.info({ ...runLogBindings(this.deps.log, this.logFields()), ...finished }, "attempt finished");
        break;
      } catch (err) {
        if (this.deps.givingUp()) {
          this.log.error({ err, outcome: outcome.kind }, "could not record the attempt's outcome before exit; the reaper will retry it");
          break;
        }
        this.log.warn({ err, try: i + 1 }, "could not record the attempt's outcome; retrying");
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** i)));
      }
    }
    this.phase = "done";
    this.resolveDone();
  }
}

const ABORT_REASONS: Record<StopReason, string> = {
  timeout: "timeout",
  cancel: "cancelled",
  drain: "worker shutting down",
  fence: "worker lost the database",
  lost: "run taken over",
  memory: "memory limit exceeded",
};
