// Bench hook (bench/latency.bench.ts): with VIGIL_LATENCY_TRACE=true the worker prints one line per hop of
// a run's start — the NOTIFY heard, the fetch sent and answered, the claim answered, the attempt handed to its thread,
// the handler started (in the thread) — with a wall-clock epoch ms of this machine (performance.timeOrigin + now, the
// clock the bench and the embedded PostgreSQL read). Off, it costs one boolean test per hop.
// Read from process.env, not core/env.ts: executor threads load only what a handler needs.
const enabled = process.env.VIGIL_LATENCY_TRACE === "true";

export const LATENCY_TRACE_PREFIX = "vigil-latency ";

export function traceHop(hop: string, runIds?: readonly string[]): void {
  if (!enabled) return;
  const at = performance.timeOrigin + performance.now();
  process.stdout.write(`${LATENCY_TRACE_PREFIX}${JSON.stringify({ hop, at, ...(runIds ? { runIds } : {}) })}\n`);
}
