// How late the last run of a burst starts when a concurrency group's due runs exceed what it may run at once.
// Pure. The model: the runs of a minute are due at the minute's start (cron fires mostly are; an interval's fire
// later in the minute is counted early, so the figure errs on the late side); each takes its schedule's measured
// median duration (a minute's runs share their mean); the group runs at most `limit` at once, a free slot takes the
// longest-waiting run (claim order is due order), and slots still busy with an earlier minute's runs carry over.
// A start-rate limit (maxStarts per perSeconds) delays the n-th run of a burst by ⌊(n − 1) / maxStarts⌋ × perSeconds
// on its own; the later of the two is the estimate.
import { MINUTE_MS } from "./count-due-fires";

export interface GroupLimits {
  limit: number;
  startRateLimit: { maxStarts: number; perSeconds: number } | null;
}

export interface Burst {
  /** Minute index in the window. */
  minute: number;
  due: number;
  /** When the last run due in this minute is expected to start, after the minute's start. */
  lastStartLatenessMs: number;
  /** Mean measured duration of the minute's runs (what the estimate used). */
  meanDurationMs: number;
}

/** A min-heap of slot free times (ms since the window start). */
class SlotHeap {
  readonly a: Float64Array;
  constructor(n: number) {
    this.a = new Float64Array(n);
  }
  get min(): number {
    return this.a[0]!;
  }
  /** Replaces the earliest free time with `v`. */
  replaceMin(v: number): void {
    const a = this.a;
    const n = a.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && a[r]! < a[l]! ? r : l;
      if (a[c]! >= v) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = v;
  }
}

/**
 * Starts n runs of duration d due at t on the slots; returns the last start. One run at a time takes the earliest
 * free slot — except while the slots' free times (from t on) lie within d of each other: then each of the next L
 * runs takes a different slot in turn, so whole rounds of L are added at once (exactly what one at a time gives;
 * a burst of 800 on 10 slots is one step, not 800). Raising every time to at least t, or by the same amount, keeps
 * the heap a heap.
 */
function startRuns(slots: SlotHeap, t: number, n: number, d: number): number {
  const a = slots.a;
  const L = a.length;
  let last = t;
  let left = n;
  let sinceCheck = L;
  while (left > 0) {
    if (left >= L && sinceCheck >= L) {
      sinceCheck = 0;
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of a) {
        const x = Math.max(v, t);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      if (hi - lo <= d) {
        const rounds = Math.floor(left / L);
        for (let i = 0; i < L; i++) a[i] = Math.max(a[i]!, t) + rounds * d;
        last = Math.max(last, hi + (rounds - 1) * d);
        left -= rounds * L;
        continue;
      }
    }
    const start = Math.max(slots.min, t);
    slots.replaceMin(start + d);
    last = Math.max(last, start);
    left--;
    sinceCheck++;
  }
  return last;
}

/**
 * The bursts of a group: every minute with more runs due than the group runs at once, or whose last due run is
 * expected to start late (more than a second after the minute's start). `due[m]` runs with summed duration
 * `durationMs[m]` are due in minute m.
 */
export function groupBursts(due: Int32Array, durationMs: Float64Array, limits: GroupLimits): Burst[] {
  const slots = new SlotHeap(Math.max(1, limits.limit));
  const out: Burst[] = [];
  const rate = limits.startRateLimit;
  for (let m = 0; m < due.length; m++) {
    const n = due[m]!;
    if (n === 0) continue;
    const t = m * MINUTE_MS;
    const d = durationMs[m]! / n;
    let lateness = startRuns(slots, t, n, d) - t;
    if (rate && rate.maxStarts > 0) lateness = Math.max(lateness, Math.floor((n - 1) / rate.maxStarts) * rate.perSeconds * 1000);
    if (lateness > 1000 || n > limits.limit)
      out.push({ minute: m, due: n, lastStartLatenessMs: Math.round(lateness), meanDurationMs: Math.round(d) });
  }
  return out;
}
