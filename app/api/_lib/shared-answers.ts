// Answers shared by every tab of one console process while its change feed is reading (core/console/
// console-change-feed.ts): after a change message every open tab refetches the same reads at once, and with the
// feed's shared version (what the topics were when last named) in the ETag, they all ask for the same answer. The
// first request computes it; the others, arriving meanwhile or later, are handed the same text (or a 304). Ten open
// consoles then cost the database what one costs.
//
// An answer is kept for its version and at most MAX_AGE_MS (what moves with time alone, such as a next fire time or
// the timeline's now, is recomputed at least that often), per route variant and URL; at most MAX_BYTES in all.

const MAX_AGE_MS = 15_000;
const MAX_ENTRIES = 256;
const MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  version: string;
  at: number;
  etag: string;
  text: Promise<string>;
  bytes: number;
}

const entries = new Map<string, Entry>();
let generation = 0;
let bytes = 0;

export interface SharedAnswer {
  etag: string;
  text: Promise<string>;
  /** Whether this request found the answer computed (or being computed) for another. */
  hit: boolean;
}

/** The answer for `key` at `version`: the kept one, or `compute()`'s (kept for the next asker). */
export function sharedAnswer(key: string, version: string, variant: string, compute: () => Promise<string>): SharedAnswer {
  const now = performance.now();
  const kept = entries.get(key);
  if (kept && kept.version === version && now - kept.at <= MAX_AGE_MS) return { etag: kept.etag, text: kept.text, hit: true };
  if (kept) forget(key, kept);
  const entry: Entry = { version, at: now, etag: `W/"s${version}.${(++generation).toString(36)}.${variant}"`, text: compute(), bytes: 0 };
  entries.set(key, entry);
  entry.text.then(
    (text) => {
      if (entries.get(key) !== entry) return;
      entry.bytes = text.length;
      bytes += entry.bytes;
      evict();
    },
    // A failed computation is not kept: the next asker tries again (this one's caller gets the error).
    () => forget(key, entry),
  );
  evict();
  return { etag: entry.etag, text: entry.text, hit: false };
}

function forget(key: string, entry: Entry): void {
  if (entries.get(key) !== entry) return;
  entries.delete(key);
  bytes -= entry.bytes;
}

function evict(): void {
  for (const [key, entry] of entries) {
    if (entries.size <= MAX_ENTRIES && bytes <= MAX_BYTES) return;
    forget(key, entry);
  }
}

/**
 * Drops every kept answer. Called when this process answers a read per request while its feed runs (after a write of
 * its own, or an unsettled change): that answer is fresher than the kept ones, and the shared version can come back
 * unchanged afterwards (a write that named no topic), so serving a kept one then would take a tab back in time.
 */
export function forgetSharedAnswers(): void {
  entries.clear();
  bytes = 0;
}
