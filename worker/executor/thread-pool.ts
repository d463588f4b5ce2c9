// A warm pool of attempt threads, bounded by the worker's concurrency. Threads are started ahead
// of time (loading handlers takes a few hundred ms) so a due run starts in milliseconds; a thread
// that was terminated (timeout, cancel, crash) is replaced in the background.
import os from "node:os";
import { Worker } from "node:worker_threads";
import type { Logger } from "../../core/log";
import { DEFAULT_THREAD_LIMITS, type FromThread, type ThreadData, type ToThread } from "./thread-protocol";

const THREAD_ENTRY = new URL("./attempt-thread.ts", import.meta.url);
const RESPAWN_BACKOFF_MS = 1000;
/**
 * How often idle threads are checked against the memory bound: a handler may leave a timer behind that keeps
 * allocating after its run returned. (A running attempt checks its own thread far more often: attempt.ts.)
 */
const IDLE_MEMORY_CHECK_MS = 1000;
/**
 * Threads that die before becoming ready, one after another, mean no thread can start at all (a handler module
 * that throws at import, a Node that cannot load the entry): after this many the pool gives up instead of
 * retrying once a second forever. One thread that becomes ready resets the count.
 */
export const MAX_CONSECUTIVE_START_FAILURES = 5;
/**
 * Threads load their modules with Node's built-in type stripping instead of inheriting the tsx
 * loader: a replacement thread after a kill is ready in a fraction of the time. If a thread ever
 * fails to start that way (a handler module Node cannot strip), later threads inherit tsx again.
 */
let nativeTypeScript = Boolean((process.features as { typescript?: string | false }).typescript);

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

export type ThreadEvent = FromThread | { type: "exit"; code: number; error?: string };

export class PooledThread {
  private listener: ((e: ThreadEvent) => void) | null = null;
  ready = false;
  dead = false;

  constructor(
    readonly id: number,
    readonly worker: Worker,
  ) {}

  /** Routes this thread's messages to one attempt until detach(). */
  attach(listener: (e: ThreadEvent) => void): void {
    this.listener = listener;
  }

  detach(): void {
    this.listener = null;
  }

  /** Whether an attempt is attached (its events, errors included, go to it). */
  get attached(): boolean {
    return this.listener !== null;
  }

  emit(e: ThreadEvent): void {
    this.listener?.(e);
  }

  post(m: ToThread): void {
    if (!this.dead) this.worker.postMessage(m);
  }
}

export class ThreadPool {
  private idle: PooledThread[] = [];
  private all = new Set<PooledThread>();
  private nextId = 1;
  private stopped = false;
  private warm = false;
  private startFailures = 0;
  private firstReady = deferred();
  private everReady = false;
  private idleMemoryTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly size: number,
    private readonly log: Logger,
    /** Called when a thread becomes idle (a slot is free). */
    private readonly onAvailable: () => void,
    /**
     * Called once when MAX_CONSECUTIVE_START_FAILURES threads in a row died before becoming ready after the pool
     * had started; the pool has stopped respawning and the worker cannot run anything. (Before the first thread
     * is ready, start() rejects instead.)
     */
    private readonly onFatal: (err: Error) => void = () => {},
    /** The module each thread runs (tests pass their own). */
    private readonly entry: URL = THREAD_ENTRY,
    private readonly threadData: ThreadData = { handlerSources: [], cwd: process.cwd(), ...DEFAULT_THREAD_LIMITS },
  ) {}

  /** A thread's total memory bound in bytes (heap, external memory and array buffers together). */
  get memoryLimitBytes(): number {
    return this.threadData.memoryLimitMb * 1024 * 1024;
  }

  /**
   * Resolves when the first thread is ready; the others warm up behind it. Loading the handler
   * modules costs each thread a few hundred ms of CPU, so a worker takes work after one thread's
   * cost instead of all of them (several threads starting at once share the same cores anyway).
   */
  async start(): Promise<void> {
    this.idleMemoryTimer ??= setInterval(() => void this.checkIdleMemory(), IDLE_MEMORY_CHECK_MS).unref();
    void this.spawn();
    await this.firstReady.promise;
    void this.spawnInWaves(this.size - 1);
  }

  /**
   * The rest start as many at a time as there are cores: all at once, they share the cores and each becomes ready
   * only near the end of them all; in waves, the worker's capacity grows with every wave (a worker restarted after
   * a crash, on a busy host, takes its backlog sooner).
   */
  private async spawnInWaves(n: number): Promise<void> {
    const wave = Math.max(1, os.availableParallelism());
    for (let left = n; left > 0 && !this.stopped; left -= wave) {
      await Promise.all(Array.from({ length: Math.min(wave, left) }, () => this.spawn()));
    }
  }

  idleCount(): number {
    return this.idle.length;
  }

  /** Threads that exist (idle, busy or starting): never more than size. */
  liveCount(): number {
    return this.all.size;
  }

  take(): PooledThread | undefined {
    return this.idle.pop();
  }

  /** Returns a healthy thread after its attempt ended normally. */
  release(t: PooledThread): void {
    t.detach();
    if (t.dead || this.stopped) return;
    this.idle.push(t);
    this.onAvailable();
  }

  /** Terminates a thread (whatever it is doing) and starts a replacement. Resolves once it is gone. */
  async kill(t: PooledThread): Promise<void> {
    t.dead = true;
    this.idle = this.idle.filter((x) => x !== t);
    await t.worker.terminate();
    this.forget(t);
  }

  /** An idle thread over the memory bound (something its last handler left running) is replaced. */
  private async checkIdleMemory(): Promise<void> {
    for (const t of [...this.idle]) {
      const used = await t.worker.getHeapStatistics().then(
        (s) => s.total_heap_size + s.external_memory,
        () => 0,
      );
      if (used > this.memoryLimitBytes && this.idle.includes(t) && !this.stopped) {
        this.log.warn({ thread: t.id, usedMb: Math.round(used / 1024 / 1024) }, "idle executor thread over its memory bound; replacing it");
        await this.kill(t);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.idleMemoryTimer);
    // A start() still waiting for its first thread returns (a drain during start-up).
    this.firstReady.resolve();
    const threads = [...this.all];
    this.idle = [];
    await Promise.all(threads.map((t) => ((t.dead = true), t.worker.terminate())));
    this.all.clear();
  }

  private giveUp(err: Error): void {
    if (this.stopped) return;
    if (this.everReady) this.onFatal(err);
    else this.firstReady.reject(err);
    void this.stop();
  }

  private forget(t: PooledThread): void {
    if (!this.all.delete(t)) return;
    if (!this.stopped) void this.spawn();
  }

  private spawn(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let lastError: string | undefined;
    const native = nativeTypeScript;
    const worker = new Worker(this.entry, {
      workerData: this.threadData,
      // The heap alone cannot pass the thread's total bound; the rest (buffers) is watched by its attempt (attempt.ts).
      resourceLimits: { maxOldGenerationSizeMb: this.threadData.memoryLimitMb },
      ...(native ? { execArgv: [] } : {}),
    });
    const t = new PooledThread(this.nextId++, worker);
    this.all.add(t);
    return new Promise<void>((resolve) => {
      worker.on("message", (m: FromThread) => {
        if (m.type === "ready" && !t.ready) {
          t.ready = true;
          this.startFailures = 0;
          this.everReady = true;
          this.firstReady.resolve();
          if (!this.warm && [...this.all].every((x) => x.ready) && this.all.size === this.size) {
            this.warm = true;
            this.log.info({ threads: this.size }, "executor threads warm");
          }
          if (!t.dead && !this.stopped) {
            this.idle.push(t);
            this.onAvailable();
          }
          resolve();
          return;
        }
        t.emit(m);
      });
      worker.on("error", (err) => {
        if (!t.ready && native && nativeTypeScript) {
          nativeTypeScript = false;
          this.log.warn({ err }, "executor thread could not load with Node's type stripping; using tsx for threads");
        }
        if (!t.ready) lastError = err.message;
        // An attempt's error may hold the secret values it was given: the attempt logs it, redacted (attempt.ts).
        if (t.attached) this.log.error({ thread: t.id, errorName: err.name }, "executor thread crashed during an attempt");
        else this.log.error({ err, thread: t.id }, "executor thread crashed");
        t.emit({ type: "exit", code: 1, error: err.message });
      });
      worker.on("exit", (code) => {
        const wasReady = t.ready;
        t.dead = true;
        this.idle = this.idle.filter((x) => x !== t);
        t.emit({ type: "exit", code });
        if (!this.all.has(t)) return resolve();
        this.all.delete(t);
        if (this.stopped) return resolve();
        if (!wasReady && ++this.startFailures >= MAX_CONSECUTIVE_START_FAILURES) {
          this.giveUp(
            new Error(
              `executor threads cannot start: ${this.startFailures} threads in a row died before becoming ready (last: ${lastError ?? `exit code ${code}`})`,
            ),
          );
          return resolve();
        }
        // A thread that died while starting (bad module, no memory) is retried after a pause, not in a hot loop.
        if (!wasReady) setTimeout(() => void this.spawn().then(resolve), RESPAWN_BACKOFF_MS).unref();
        else {
          void this.spawn();
          resolve();
        }
      });
    });
  }
}
