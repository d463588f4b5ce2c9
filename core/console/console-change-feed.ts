// One change feed per console process, shared by every open tab's change stream (GET /api/changes): a dedicated
// database connection reads the change signatures (read-change-signatures.ts) once per tick and tells every
// subscriber which topics changed since the last tick. Ten tabs or a hundred cost the database the same one read a
// second; a busy fleet whose runs change a thousand times a second still names each topic at most once per
// minIntervalMs (2 s), and `runs` at most once per busyIntervalMs (5 s) while the fleet is busy (more than
// busyChangesPerSecond run changes a second over the last 10 s), while a quiet fleet's first change goes out at the
// next tick. So while busy, what a page shows of runs is at most busyIntervalMs + a tick or two old. `attention`
// (the header's hour sliding on with the clock) is named at most once per busyIntervalMs always.
//
// Settled before named: the triggers bump the sequences inside the writing transaction, before its commit is
// visible, so a tab that refetched at once could read the old rows under the new version (and, with the version in
// the answer's ETag, keep them: nothing would be named again — the schedules list's 24 h counts stayed behind until
// the next safety-net poll, up to 60 s). A change is named only once every writing transaction of this database that
// was in progress just after the read has ended (runningTransactions): then whatever bumped the sequence is committed
// (or rolled back). On a quiet database that is at once; on a busy one a moment later (checked again after 150 ms).
// A transaction open longer than maxSettleMs does not hold the feed back: the change is named anyway, marked
// unsettled (its answers are not shared).
//
// Per team: runs, schedules, attention and alerts concern team-owned objects. Each subscriber registers with the teams
// it sees (null: every team, the global admin); when one of these topics is to be named, one more statement reads it per
// team (readTeamSignatures, after the change settled, so it sees what the signatures saw) and each subscriber is told
// only if it changed in one of its teams or in what everyone sees (EVERY_TEAM). A change the per-team read could not
// see yet (named unsettled, its transaction still open) is read per team again once that transaction has ended.
//
// The version the console's reads share (sharedVersion): the settled signatures each topic had when it was last
// named. Every tab that refetches after a message asks with the same version, so the console process computes the
// answer once and hands it to all of them (app/api/_lib/conditional-json.ts). A write made through this console
// (noteLocalWrite) suspends that until the feed has read and named it, so the writer's own refetch is fresh.
//
// Lazy: the connection is opened for the first subscriber and closed a while after the last one leaves. Its first
// settled read names every topic once: the tabs' own refetch at hello may have come before it, and nothing else would
// name what changed in between. It survives the database going away (a restart, a failover, a terminated backend):
// the feed says "health" changed, retries with a capped backoff, and when the database answers again says that every
// topic changed, so each tab reloads what it shows (what happened while it was down was never seen).
//
// The same connection LISTENs for credentials being revoked (vigil_auth_changed, sent by triggers when a session
// ends, an account is disabled or its role changes, a token is revoked; migration 20261204200000): each stream then
// checks its own credentials again (change-event-stream.ts) and ends if they no longer hold, within a second of the
// commit instead of at the stream's end. After the database was lost, every stream checks again (a revocation may
// have gone by unheard).
import { createHash } from "node:crypto";
import pg from "pg";
import { CHANGE_TOPICS, EVERY_TEAM, isTeamTopic, type ChangeTopic, type TeamTopic } from "./change-topics";
import {
  readChangeSignatures,
  readTeamSignatures,
  runningTransactions,
  type ChangeSignatures,
  type TeamSignatures,
} from "./read-change-signatures";

export type ChangeSubscriber = (topics: ChangeTopic[]) => void;

/** Per team topic named: the teams (or EVERY_TEAM) in which it changed since it was last named. */
type ChangedTeams = Map<TeamTopic, Set<string>>;

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
  /** `runs` is named at most once per this long while the fleet is busy (busyChangesPerSecond). */
  busyIntervalMs?: number;
  /** Run or schedule changes (console version bumps) per second, over busyWindowMs, above which the fleet is busy. */
  busyChangesPerSecond?: number;
  busyWindowMs?: number;
  /** A change read while a transaction stays open longer than this is named anyway (unsettled: not shared). */
  maxSettleMs?: number;
  /** How long the connection stays open after the last subscriber left (a reloading tab comes straight back). */
  idleCloseMs?: number;
  /** A read that takes longer counts as the database being down. */
  readTimeoutMs?: number;
  retryMaxMs?: number;
  /** Called when the database is lost (throttled by the caller if it likes). */
  onDatabaseLost?: (err: unknown) => void;
}

let feedsCreated = 0;
const SETTLE_RECHECK_MS = 150;

export class ConsoleChangeFeed {
  /** Each subscriber and the teams it sees (null: every team, the global admin). */
  private readonly subscribers = new Map<ChangeSubscriber, ReadonlySet<string> | null>();
  private readonly credentialWatchers = new Map<ChangeSubscriber, () => void>();
  private client: pg.Client | null = null;
  /** The latest settled read (and whether it was settled, or named anyway after maxSettleMs). */
  private stable: { signatures: ChangeSignatures; settled: boolean } | null = null;
  /** A read not settled yet: the transactions it waits for (runningTransactions), and since when changes wait. */
  private candidate: { signatures: ChangeSignatures; waitsFor: string[]; since: number } | null = null;
  /** Per topic: the stable signature when it was last named, and whether that one was settled. */
  private readonly named = new Map<ChangeTopic, { signature: string; settled: boolean }>();
  /** Per team topic: the per-team signatures (readTeamSignatures) when it was last named. */
  private readonly teamNamed: TeamSignatures = new Map();
  /** Team topics named unsettled: read per team again once the transactions they waited for have ended. */
  private teamRecheck: { topics: Set<TeamTopic>; waitsFor: string[] } | null = null;
  /** The transactions the last unsettled promotion gave up waiting for. */
  private unsettledWaitsFor: string[] = [];
  private state: FeedDatabaseState = "unknown";
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking = false;
  private tickAgain = false;
  private ticks = 0;
  /** The tick count when this console last wrote (noteLocalWrite), until a later tick has named it. */
  private localWriteAt: number | null = null;
  private failures = 0;
  private readonly pending = new Set<ChangeTopic>();
  private readonly lastEmitted = new Map<ChangeTopic, number>();
  private readonly versions: { at: number; version: number }[] = [];
  private readonly epoch = `${process.pid}-${++feedsCreated}-${Math.round(performance.timeOrigin)}`;
  private readonly tickMs: number;
  private readonly minIntervalMs: number;
  private readonly busyIntervalMs: number;
  private readonly busyChangesPerSecond: number;
  private readonly busyWindowMs: number;
  private reads = 0;
  private readonly maxSettleMs: number;
  private readonly idleCloseMs: number;
  private readonly readTimeoutMs: number;
  private readonly retryMaxMs: number;

  constructor(private readonly opts: ConsoleChangeFeedOptions) {
    this.tickMs = opts.tickMs ?? 1000;
    this.minIntervalMs = opts.minIntervalMs ?? 2000;
    this.busyIntervalMs = opts.busyIntervalMs ?? 5000;
    this.busyChangesPerSecond = opts.busyChangesPerSecond ?? 5;
    this.busyWindowMs = opts.busyWindowMs ?? 10_000;
    this.maxSettleMs = opts.maxSettleMs ?? 2000;
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

  /** How many times the signatures were read (for tests and diagnostics). */
  get readCount(): number {
    return this.reads;
  }

  /** Whether runs change often enough that `runs` is named at most once per busyIntervalMs. */
  get busy(): boolean {
    const first = this.versions[0];
    const last = this.versions.at(-1);
    if (!first || !last || last.at - first.at < this.busyWindowMs / 2) return false;
    return ((last.version - first.version) * 1000) / (last.at - first.at) > this.busyChangesPerSecond;
  }

  /**
   * A version of what `topics` show that every tab refetching after the same message shares: the signatures they had
   * when last named. Null when it cannot stand for the database: the feed is not reading (no stream open in this
   * process), the database is down, the last message was unsettled, or this console wrote something not named yet.
   */
  sharedVersion(topics: readonly ChangeTopic[]): string | null {
    if (!this.running || this.state !== "up" || this.localWriteAt !== null) return null;
    const h = createHash("sha1").update(this.epoch);
    for (const t of topics) {
      const n = this.named.get(t);
      if (!n?.settled) return null;
      h.update("\0").update(n.signature);
    }
    return h.digest("base64url").slice(0, 16);
  }

  /**
   * This console process just committed a write (an API mutation): its sharedVersion is suspended until a tick that
   * started after it has named what changed, which happens at once (the writer's tab is waiting to see its change).
   */
  noteLocalWrite(): void {
    if (!this.running) return;
    this.localWriteAt = this.ticks;
    if (this.ticking) this.tickAgain = true;
    else this.schedule(0);
  }

  /**
   * `onCredentialsChanged`: some credentials were revoked or changed (whose is not said): check yours again.
   * `teams`: the teams the subscriber sees (visibleTeamIds; null: every team): runs, schedules, attention and alerts
   * are named to it only when they changed in one of them (or in what every subscriber sees); workers and health always.
   */
  subscribe(fn: ChangeSubscriber, onCredentialsChanged?: () => void, teams: readonly string[] | null = null): () => void {
    this.subscribers.set(fn, teams === null ? null : new Set(teams));
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
    this.stable = null;
    this.candidate = null;
    this.named.clear();
    this.teamNamed.clear();
    this.teamRecheck = null;
    this.localWriteAt = null;
    this.state = "unknown";
    this.pending.clear();
    this.lastEmitted.clear();
    this.versions.length = 0;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  /** The changed topics whose window has passed, to be named now; the others wait in `pending` for a later tick. */
  private dueTopics(changed: readonly ChangeTopic[], urgent: boolean): ChangeTopic[] {
    for (const t of changed) this.pending.add(t);
    const now = performance.now();
    const busy = this.busy;
    const due = [...this.pending].filter((t) => {
      if (urgent || t === "health") return true;
      // attention moves with the clock alone (a run leaving the header's hour): never urgent, and with a busy fleet's
      // troubled runs it would move every second.
      const interval = (t === "runs" && busy) || t === "attention" ? this.busyIntervalMs : this.minIntervalMs;
      return now - (this.lastEmitted.get(t) ?? -Infinity) >= interval;
    });
    for (const t of due) this.pending.delete(t);
    return due;
  }

  /**
   * Reads the team topics among `topics` per team and says in which teams each changed since it was last named
   * (every team's when it was never named: the feed's first read, or the first after the database came back).
   */
  private async changedTeams(client: pg.Client, topics: readonly ChangeTopic[]): Promise<ChangedTeams> {
    const teamTopics = topics.filter(isTeamTopic);
    const now = await readTeamSignatures(client, teamTopics);
    const changed: ChangedTeams = new Map();
    for (const t of teamTopics) {
      const before = this.teamNamed.get(t);
      const after = now.get(t)!;
      const teams = new Set<string>();
      if (!before) teams.add(EVERY_TEAM);
      else for (const k of new Set([...before.keys(), ...after.keys()])) if (before.get(k) !== after.get(k)) teams.add(k);
      changed.set(t, teams);
      this.teamNamed.set(t, after);
    }
    return changed;
  }

  /** Names `topics`: to each subscriber those that changed in a team it sees (`teams`, changedTeams; the rest to all). */
  private emitNamed(topics: ChangeTopic[], teams: ChangedTeams, coalesced: boolean): void {
    if (topics.length === 0) return;
    // Named unsettled: a transaction still open may hold a team's change the per-team read could not see yet.
    if (this.stable && !this.stable.settled && teams.size > 0) {
      const recheck = new Set([...(this.teamRecheck?.topics ?? []), ...teams.keys()]);
      this.teamRecheck = { topics: recheck, waitsFor: this.unsettledWaitsFor };
    }
    // A topic's window runs from when it is named (after the per-team read), not from when it was found due.
    const now = performance.now();
    if (coalesced) for (const t of topics) this.lastEmitted.set(t, now);
    this.emit(topics, teams);
  }

  private emit(topics: ChangeTopic[], changedTeams?: ChangedTeams, rename = true): void {
    if (topics.length === 0) return;
    if (rename)
      for (const t of topics) if (this.stable) this.named.set(t, { signature: this.stable.signatures[t], settled: this.stable.settled });
    for (const [fn, sees] of [...this.subscribers]) {
      const mine = sees === null ? topics : topics.filter((t) => concerns(changedTeams, t, sees));
      if (mine.length === 0) continue;
      try {
        fn(mine);
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

  /** Reads the signatures; returns the stable (settled) read before and after this one. */
  private async read(client: pg.Client): Promise<{ before: ChangeSignatures | null; after: ChangeSignatures | null; running: string[] }> {
    const before = this.stable?.signatures ?? null;
    const read = await readChangeSignatures(client, this.opts.deadAfterMs);
    const now = performance.now();
    this.versions.push({ at: now, version: read.runsVersion });
    while (this.versions.length > 2 && now - this.versions[0]!.at > this.busyWindowMs) this.versions.shift();
    // The waiting read is settled once none of the transactions running just after it still is.
    const c = this.candidate;
    if (c && !c.waitsFor.some((x) => read.running.includes(x))) this.promote(c.signatures, true);
    else if (c && now - c.since > this.maxSettleMs) {
      this.unsettledWaitsFor = c.waitsFor;
      this.promote(c.signatures, false);
    }
    const latest = this.candidate?.signatures ?? this.stable?.signatures;
    if (!latest || CHANGE_TOPICS.some((t) => latest[t] !== read.signatures[t])) {
      const waitsFor = await runningTransactions(client);
      if (waitsFor.length === 0) this.promote(read.signatures, true);
      else this.candidate = { signatures: read.signatures, waitsFor, since: this.candidate?.since ?? now };
    }
    this.reads++;
    return { before, after: this.stable?.signatures ?? null, running: read.running };
  }

  private promote(signatures: ChangeSignatures, settled: boolean): void {
    this.stable = { signatures, settled };
    this.candidate = null;
    if (this.named.size === 0) for (const t of CHANGE_TOPICS) this.named.set(t, { signature: signatures[t], settled });
  }

  /**
   * Team topics named unsettled (a transaction open longer than maxSettleMs): once the transactions they waited for
   * have ended, read them per team again and name them to the subscribers of the teams whose change they now show
   * (the named version is left as it is: still unsettled, not shared).
   */
  private async recheckTeams(client: pg.Client, running: readonly string[]): Promise<void> {
    const r = this.teamRecheck;
    if (!r || r.waitsFor.some((x) => running.includes(x))) return;
    this.teamRecheck = null;
    const teams = await this.changedTeams(client, [...r.topics]);
    this.emit(
      [...teams].filter(([, changed]) => changed.size > 0).map(([t]) => t),
      teams,
      false,
    );
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    const tick = ++this.ticks;
    const writeAt = this.localWriteAt;
    let next = this.tickMs;
    try {
      this.client ??= await this.connect();
      const client = this.client;
      const { before, after, running } = await this.read(client);
      if (!this.running) return;
      const wasDown = this.state === "down";
      // A local write is named at once, not after the topic's window (its writer waits to see it).
      const urgent = writeAt !== null && tick > writeAt;
      let topics: ChangeTopic[];
      const all = wasDown || (before === null && after !== null);
      if (all || (before === null && after !== null)) {
        // Came back: everything may have changed while it was down, and the tabs' reads failed meanwhile: all at once.
        // Or the first settled read since the feed started (or came back): there is nothing to compare it with, and
        // what changed between a tab's hello (when it refetched) and this read, or between a first read that had to
        // wait and this one, was named to nobody. A run triggered and finished in that moment stayed unseen until the
        // safety net. So every topic, once.
        this.pending.clear();
        topics = [...CHANGE_TOPICS];
      } else topics = this.dueTopics(before && after ? CHANGE_TOPICS.filter((t) => before[t] !== after[t]) : [], urgent);
      // Per team before anything is said (and before the feed says it is up again): one more statement, when named.
      const teams = topics.length > 0 ? await this.changedTeams(client, topics) : new Map<TeamTopic, Set<string>>();
      if (!this.running) return;
      this.state = "up";
      this.failures = 0;
      // A read waiting to settle is checked again soon: the writers it waits for are short transactions.
      if (this.candidate) next = Math.min(next, SETTLE_RECHECK_MS);
      this.emitNamed(topics, teams, !all);
      if (wasDown) this.credentialsChanged();
      else await this.recheckTeams(client, running);
      if (!this.running) return;
      if (urgent && this.localWriteAt === writeAt) {
        // Named once settled: until then the write's reads are not shared (they read the database's own version).
        if (this.candidate === null && this.pending.size === 0) this.localWriteAt = null;
        else next = Math.min(next, 100);
      }
    } catch (err) {
      if (!this.running) return;
      const c = this.client;
      this.client = null;
      void c?.end().catch(() => undefined);
      this.failures++;
      // Nothing read before the loss stands for the database any more (and the answers shared under it are dropped).
      this.candidate = null;
      this.stable = null;
      this.named.clear();
      this.teamNamed.clear();
      this.teamRecheck = null;
      if (this.state !== "down") {
        this.state = "down";
        this.opts.onDatabaseLost?.(err);
        this.emit(["health"]);
      }
      next = Math.min(this.retryMaxMs, 250 * 2 ** Math.min(this.failures, 6));
    } finally {
      this.ticking = false;
      if (this.running) this.schedule(this.tickAgain ? 0 : next);
      this.tickAgain = false;
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

/** The process's feed if one was created (a change stream was opened here), without creating it. */
export function findConsoleChangeFeed(): ConsoleChangeFeed | undefined {
  return (globalThis as { [GLOBAL_KEY]?: ConsoleChangeFeed })[GLOBAL_KEY];
}

/** Whether topic `t`, named with `changedTeams`, concerns a subscriber who sees `sees`. */
function concerns(changedTeams: ChangedTeams | undefined, t: ChangeTopic, sees: ReadonlySet<string>): boolean {
  const changed = isTeamTopic(t) ? changedTeams?.get(t) : undefined;
  if (!changed) return true;
  if (changed.has(EVERY_TEAM)) return true;
  for (const team of changed) if (sees.has(team)) return true;
  return false;
}
