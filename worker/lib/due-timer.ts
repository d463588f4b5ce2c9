// Knows when runs are due and wakes the dispatcher at that instant. Due times are database-clock
// epoch ms; the timer runs on performance.now() through a measured offset (db clock − monotonic
// clock, corrected by half the round trip), so a skewed wall clock changes nothing.
// Each due time remembers which handlers' runs fall due then, so the dispatcher fetches from those
// handlers' queues only (core/queue/boss.ts: one queue per handler).
import type pg from "pg";
import type { Logger } from "../../core/log";

const RESYNC_MS = 30_000;
const REFRESH_MS = 15_000;
const MAX_TIMES = 20_000;
/** Fire this much after the due instant so pg-boss's start_after <= now() already holds. */
const FIRE_MARGIN_MS = 2;
const FOLLOW_UPS_MS = [8, 30];

/** Handlers whose queues may hold due jobs now; "all" when a time's handlers are unknown. */
export type DueHandlers = Set<string> | "all";

export class DueTimer {
  private offsetMs = 0;
  private times: number[] = [];
  private handlersAt = new Map<number, DueHandlers>();
  private lastFired: DueHandlers = "all";
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private intervals: NodeJS.Timeout[] = [];
  private followUps: number[] = [];
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
    private readonly wake: (handlers: DueHandlers) => void,
  ) {}

  async start(): Promise<void> {
    await this.sync();
    await this.refreshFromRuns();
    this.intervals.push(
      setInterval(() => void this.sync().catch((err) => this.log.warn({ err }, "clock sync failed")), RESYNC_MS),
      setInterval(() => void this.refreshFromRuns(), REFRESH_MS),
    );
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const i of this.intervals) clearInterval(i);
  }

  /** The database clock now, estimated from the monotonic clock. */
  dbNowMs(): number {
    return performance.now() + this.offsetMs;
  }

  async sync(): Promise<void> {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const { rows } = await this.pool.query<{ ms: number }>("SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS ms");
      const t1 = performance.now();
      // Keep the sample with the shortest round trip: its midpoint estimate is the tightest.
      if (t1 - t0 < best) {
        best = t1 - t0;
        this.offsetMs = rows[0]!.ms - (t0 + t1) / 2;
      }
    }
    this.rearm();
  }

  /** Loads upcoming due times of queued runs and retries (after start or a lost LISTEN). */
  async refreshFromRuns(): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ ms: number; handler: string }>(
        `SELECT extract(epoch FROM t)::float8 * 1000 AS ms, handler FROM (
           (SELECT due_at AS t, handler FROM runs WHERE state = 'queued' AND wait_reason IS NULL AND due_at > clock_timestamp() ORDER BY due_at LIMIT 500)
           UNION
           (SELECT next_attempt_at, handler FROM runs WHERE state = 'retrying' AND next_attempt_at > clock_timestamp() ORDER BY next_attempt_at LIMIT 500)) x`,
      );
      for (const r of rows) this.add(r.ms, r.handler);
    } catch (err) {
      this.log.warn({ err }, "could not load upcoming due times");
    }
  }

  /** handler null: unknown (fetch from every queue at that time). */
  add(dueMs: number, handler: string | null): void {
    if (this.stopped) return;
    if (!Number.isFinite(dueMs) || dueMs <= this.dbNowMs() + 1) {
      this.wake(handler === null ? "all" : new Set([handler]));
      return;
    }
    const i = sortedIndex(this.times, dueMs);
    if (this.times[i] === dueMs) {
      const at = this.handlersAt.get(dueMs);
      if (at !== "all" && at !== undefined) {
        if (handler === null) this.handlersAt.set(dueMs, "all");
        else at.add(handler);
      }
      return;
    }
    if (this.times.length >= MAX_TIMES) {
      // Far-future times fall off; the refresh and the poll bring them back when they matter.
      if (i >= MAX_TIMES) return;
      this.handlersAt.delete(this.times.pop()!);
    }
    this.times.splice(i, 0, dueMs);
    this.handlersAt.set(dueMs, handler === null ? "all" : new Set([handler]));
    if (dueMs < this.armedFor) this.rearm();
  }

  /** After each fetch: a fetch right after a fire that found nothing is retried a few ms later. */
  fetched(n: number): void {
    if (n > 0) {
      this.followUps = [];
      return;
    }
    const next = this.followUps.shift();
    const again = this.lastFired;
    if (next !== undefined) setTimeout(() => !this.stopped && this.wake(again), next).unref();
  }

  private rearm(): void {
    clearTimeout(this.timer);
    this.armedFor = Infinity;
    const next = this.times[0];
    if (next === undefined || this.stopped) return;
    this.armedFor = next;
    this.timer = setTimeout(() => this.fire(), Math.max(0, next - this.dbNowMs() + FIRE_MARGIN_MS));
  }

  private fire(): void {
    const now = this.dbNowMs();
    let k = 0;
    while (k < this.times.length && this.times[k]! <= now) k++;
    let fired: DueHandlers = new Set<string>();
    for (const t of this.times.splice(0, k)) {
      const at = this.handlersAt.get(t) ?? "all";
      this.handlersAt.delete(t);
      if (fired === "all") continue;
      if (at === "all") fired = "all";
      else for (const h of at) fired.add(h);
    }
    this.lastFired = fired;
    this.followUps = [...FOLLOW_UPS_MS];
    this.wake(fired);
    this.rearm();
  }
}

function sortedIndex(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
