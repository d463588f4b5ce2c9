// One change feed per console process, shared by every open tab's change stream (GET /api/changes): a dedicated
// database connection reads the change signatures (read-change-signatures.ts) once per tick and tells every
// subscriber which topics changed since the last tick. Ten tabs or a hundred cost the database the same one read a
// second; a busy fleet whose runs change a thousand times a second still names each topic at most once per
// minIntervalMs (2 s: what the console used to poll at), while a quiet fleet's first change goes out at the next tick.
//
// Lazy: the connection is opened for the first subscriber and closed a while after the last one leaves. It survives
// the database going away (a restart, a failover, a terminated backend): the feed says "health" changed, retries
// with a capped backoff, and when the database answers again says that every topic changed, so each tab reloads
// what it shows (what happened while it was down was never seen).
//
// The same connection LISTENs for credentials being revoked (vigil_auth_changed, sent by triggers when a session
// ends, an account is disabled or its role changes, a token is revoked; migration 20261204200000): each stream then
// checks its own credentials again (change-event-stream.ts) and ends if they no longer hold, within a second of the
// commit instead of at the stream's end. After the database was lost, every stream checks again (a revocation may
// have gone by unheard).
import pg from "pg";
import { CHANGE_TOPICS, type ChangeTopic } from "./change-topics";
import { readChangeSignatures, type ChangeSignatures } from "./read-change-signatures";

export type ChangeSubscriber = (topics: ChangeTopic[]) => void;

/** The channel the auth triggers notify (migration 20261204200000_console_feed_gaps). */
export const AUTH_CHANGED_CHANNEL = "vigil_auth_changed";
export type FeedDatabaseState = "unknown" | "up" | "down";

export interface ConsoleChangeFeedOptions {
  connectionString: string;
  /** A worker whose heartbeat is older is not live (VIGIL_WORKER_DEAD_AFTER_MS). */
  deadAfterMs: number;
  /** How often the signatures are read: the longest a change waits before a quiet topic's message. */
  tickMs?: number;
  /**
   * A topic is named at most once per this long (health excepted: it is rare and urgent). A busy fleet whose runs
   * change every second makes each tab refetch once per window, not once per tick; the change waits for the window.
   */
  minIntervalMs?: number;
  /** How long the connection stays open after the last subscriber left (a reloading tab comes straight back). */
  idleCloseMs?: number;
  /** A read that takes longer counts as the database being down. */
  readTimeoutMs?: number;
  retryMaxMs?: number;
  /** Called when the database is lost (throttled by the caller if it likes). */
  onDatabaseLost?: (err: unknown) => void;
}

export class ConsoleChangeFeed {
  private readonly subscribers = new Set<ChangeSubscriber>();
  private readonly credentialWatchers = new Map<ChangeSubscriber, () => void>();
  private client: pg.Client | null = null;
  private last: ChangeSignatures | null = null;
  private state: FeedDatabaseState = "unknown";
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private running = false;
  private failures = 0;
  private readonly pending = new Set<ChangeTopic>();
  private readonly lastEmitted = new Map<ChangeTopic, number>();
  private readonly tickMs: number;
  private readonly minIntervalMs: number;
  private readonly idleCloseMs: number;
  private readonly readTimeoutMs: number;
  private readonly retryMaxMs: number;

  constructor(private readonly opts: ConsoleChangeFeedOptions) {
    this.tickMs = opts.tickMs ?? 1000;
    this.minIntervalMs = opts.minIntervalMs ?? 2000;
    this.idleCloseMs = opts.idleCloseMs ?? 30_000;
    this.readTimeoutMs = opts.readTimeoutMs ?? 3000;
    this.retryMaxMs = opts.retryMaxMs ?? 5000;
  }

  /** Whether the feed's last read reached the database ("unknown" before its first). */
  get database(): FeedDatabaseState {
    return this.state;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** `onCredentialsChanged`: some credentials were revoked or changed (whose is not said): check yours again. */
  subscribe(fn: ChangeSubscriber, onCredentialsChanged?: () => void): () => void {
    this.subscribers.add(fn);
    if (onCredentialsChanged) this.credentialWatchers.set(fn, onCredentialsChanged);
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (!this.running) {
      this.running = true;
      this.schedule(0);
    }
    return () => {
      this.credentialWatchers.delete(fn);
      if (!this.subscribers.delete(fn) || this.subscribers.size > 0) return;
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (this.subscribers.size === 0) void this.stop();
      }, this.idleCloseMs);
      this.idleTimer.unref?.();
    };
  }

  /** Closes the connection; a later subscriber starts the feed again. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.idleTimer);
    this.last = null;
    this.state = "unknown";
    this.pending.clear();
    this.lastEmitted.clear();
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  /** Names the changed topics whose window has passed; the others wait in `pending` for a later tick. */
  private emitCoalesced(changed: readonly ChangeTopic[]): void {
    for (const t of changed) this.pending.add(t);
    const now = performance.now();
    const due = [...this.pending].filter((t) => t === "health" || now - (this.lastEmitted.get(t) ?? -Infinity) >= this.minIntervalMs);
    for (const t of due) {
      this.pending.delete(t);
      this.lastEmitted.set(t, now);
    }
    this.emit(due);
  }

  private emit(topics: ChangeTopic[]): void {
    if (topics.length === 0) return;
    for (const fn of [...this.subscribers]) {
      try {
        fn(topics);
      } catch {
        // A subscriber whose stream is gone unsubscribes itself; one failing never keeps the others from hearing.
      }
    }
  }

  private credentialsChanged(): void {
    for (const fn of [...this.credentialWatchers.values()]) {
      try {
        fn();
      } catch {
        // As in emit: one watcher failing never keeps the others from checking.
      }
    }
  }

  private async connect(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString: this.opts.connectionString,
      application_name: "vigil-console-changes",
      keepAlive: true,
      connectionTimeoutMillis: this.readTimeoutMs,
      query_timeout: this.readTimeoutMs,
    });
    // A connection lost between two reads must not crash the process; the next read finds it gone.
    c.on("error", () => {
      if (this.client === c) this.client = null;
    });
    c.on("end", () => {
      if (this.client === c) this.client = null;
    });
    c.on("notification", (n) => {
      if (n.channel === AUTH_CHANGED_CHANNEL && this.client === c) this.credentialsChanged();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    return c;
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    try {
      this.client ??= await this.connect();
      const now = await readChangeSignatures(this.client, this.opts.deadAfterMs);
      if (!this.running) return;
      const wasDown = this.state === "down";
      this.state = "up";
      this.failures = 0;
      if (wasDown) {
        // Everything may have changed while it was down, and the tabs' reads failed meanwhile: all at once.
        this.pending.clear();
        this.emit([...CHANGE_TOPICS]);
        this.credentialsChanged();
      } else this.emitCoalesced(this.last ? CHANGE_TOPICS.filter((t) => this.last![t] !== now[t]) : []);
      this.last = now;
      this.schedule(this.tickMs);
    } catch (err) {
      if (!this.running) return;
      const c = this.client;
      this.client = null;
      void c?.end().catch(() => undefined);
      this.failures++;
      if (this.state !== "down") {
        this.state = "down";
        this.opts.onDatabaseLost?.(err);
        this.emit(["health"]);
      }
      this.schedule(Math.min(this.retryMaxMs, 250 * 2 ** Math.min(this.failures, 6)));
    }
  }
}

const GLOBAL_KEY = Symbol.for("vigil.consoleChangeFeed");

/**
 * The process's one feed. Kept on globalThis: Next.js may load this module once per route bundle, and a second
 * copy would open a second connection.
 */
export function getConsoleChangeFeed(create: () => ConsoleChangeFeed): ConsoleChangeFeed {
  const g = globalThis as { [GLOBAL_KEY]?: ConsoleChangeFeed };
  return (g[GLOBAL_KEY] ??= create());
}
