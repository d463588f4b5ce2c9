// How long a batching writer (outcomes, job settlements) waits before a write while the worker is busy.
// A quiet worker writes at once; one that wrote moments ago waits a few milliseconds, so one statement
// carries the several outcomes that arrive meanwhile instead of one each. Nothing a run waits for is
// delayed by it: a slot is free once its handler returns, and an outcome's time is when the attempt ended.
const LINGER_MS = 5;
const BUSY_WITHIN_MS = 50;

export function lingerMs(lastWriteEndPerf: number, nowPerf = performance.now()): number {
  return nowPerf - lastWriteEndPerf < BUSY_WITHIN_MS ? LINGER_MS : 0;
}

/** Runs fn after the linger (at once when quiet). */
export function afterLinger(lastWriteEndPerf: number, fn: () => void): void {
  const ms = lingerMs(lastWriteEndPerf);
  if (ms === 0) fn();
  else setTimeout(fn, ms);
}
