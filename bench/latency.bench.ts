// Latency of one run: a manual trigger of a default-policy no-op schedule → its handler start, on 2 idle
// workers × 8 threads, one trigger at a time, against graphile-worker 0.18's addJob → task start (2 processes ×
// concurrency 8) in the same run. The variants take turns sample by sample, so a load swing on this shared machine
// hits them alike:
//   - core:    triggerNow called in this process with a pg-boss client, as the API route calls it — like for like with
//              addJob (a library call against the same database → start). The goal (≤ 1.5× graphile p50) applies here.
//   - api:     POST /api/schedules/:id/trigger over HTTP to the production console build (bearer token, audit row):
//              the operator's path, with Next.js routing, auth and the HTTP round trip on top. Needs a current
//              `next build` (BENCH_LATENCY_HTTP=build builds one; =off skips it).
//   - planner: triggerNow without a pg-boss client: the run is enqueued by a planner woken by NOTIFY (the path every
//              trigger took before; kept for callers without a client) — the "before" figure, measured alongside.
// Every hop is timed: the trigger's statements (this process, core/planner variants), and in the worker (with
// VIGIL_LATENCY_TRACE=true, worker/lib/latency-trace.ts) NOTIFY heard → fetch sent → fetched → claimed → handed to the
// thread → handler started. Times are wall-clock epoch ms of this machine, read by every process alike.
// After the interleaved samples, a few "after a quiet spell" samples (BENCH_LATENCY_IDLE_SAMPLES, default 3): each
// waits longer than pg-pool's idle timeout (10 s) with nothing running, then takes one core sample and one
// graphile-worker sample — the operator who triggers a run on a quiet system, where a pool that let its
// connections go pays for new ones (a backend start and authentication) on the way.
// `npm run bench -- latency` (BENCH_LATENCY_SAMPLES=200 per variant by default; BENCH_LATENCY_PLANNER=off leaves the
// planner variant out).
import os from "node:os";
import pg from "pg";
import { cloneTemplate, dropDatabase, startTestPostgres } from "../test/postgres-for-tests";
import { createTestToken } from "../test/auth";
import type { TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";
import { buildIsCurrent } from "../scripts/lib/build";
import { terminate, type Managed } from "../scripts/lib/processes";
import { LATENCY_TRACE_PREFIX } from "../worker/lib/latency-trace";
import { percentile } from "./lib/stats";
import { startWarmWorkers } from "./lib/workers";
import { buildConsoleIfStale, startBenchConsole } from "./lib/console";
import { runBenchWhenMain } from "./lib/main";
import { graphileWorkerMain, migrateGraphile, startGraphileProcess, type GraphileProcess } from "./lib/graphile";

const say = (line: string) => process.stdout.write(`[latency.bench] ${line}\n`);
const epochNow = () => performance.timeOrigin + performance.now();
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
const fmt = (xs: number[]) =>
  xs.length === 0 ? "—" : `p50 ${percentile(xs, 50).toFixed(1).padStart(5)} ms, p95 ${percentile(xs, 95).toFixed(1).padStart(5)} ms`;

type Variant = "core" | "api" | "planner";

/** Longer than pg-pool's default idle timeout (10 s), after which a pool closes idle connections above its minimum. */
const IDLE_PAUSE_MS = 11_000;

/** One sample's hops (ms); a hop that could not be seen (e.g. a wake-up by the poll, not the NOTIFY) is absent. */
type Hops = Record<string, number>;

interface TraceEvent {
  hop: string;
  at: number;
  runIds?: string[];
}

/**
 * Parses the trace lines of one worker as they arrive. The main thread's hops are lines of their own; the executor
 * thread's (handler_start) are written to the thread's stdout during the run, which the worker keeps as a line of the
 * run's log and prints as a JSON log line whose `msg` is the trace line.
 */
class WorkerTrace {
  private seen = 0;
  readonly events: TraceEvent[] = [];
  constructor(readonly worker: TestWorker) {}
  pull(): void {
    const logs = this.worker.logs;
    for (; this.seen < logs.length; this.seen++) {
      const line = logs[this.seen]!;
      const trace = line.startsWith(LATENCY_TRACE_PREFIX) ? line : line.includes(LATENCY_TRACE_PREFIX) ? threadTrace(line) : undefined;
      if (trace) this.events.push(JSON.parse(trace.slice(LATENCY_TRACE_PREFIX.length)) as TraceEvent);
    }
  }
}

/** The trace line inside a worker's JSON log line of a run's stdout, if it is one. */
function threadTrace(line: string): string | undefined {
  try {
    const msg = (JSON.parse(line) as { msg?: unknown }).msg;
    return typeof msg === "string" && msg.startsWith(LATENCY_TRACE_PREFIX) ? msg : undefined;
  } catch {
    return undefined;
  }
}

/** The statements of the trigger's transaction, timed by wrapping pg's Client.query in this process while recording. */
const statements: { label: string; ms: number }[] = [];
let recording = false;
function timeStatements(): void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const orig = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (!recording) return orig.apply(this, args);
    const t = performance.now();
    const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string })?.text ?? "");
    const label = statementLabel(text);
    const done = () => statements.push({ label, ms: performance.now() - t });
    // pg.Pool#query passes a callback; a checked-out client's query returns a promise.
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const cb = args[last] as (...a: unknown[]) => void;
      args[last] = (...a: unknown[]) => (done(), cb(...a));
    }
    const r = orig.apply(this, args);
    if (r && typeof (r as Promise<unknown>).then === "function") void (r as Promise<unknown>).then(done, () => undefined);
    return r;
  };
}

function statementLabel(sql: string): string {
  const s = sql.replace(/\s+/g, " ").trim();
  if (/^BEGIN/i.test(s)) return "BEGIN";
  if (/^COMMIT/i.test(s)) return "COMMIT";
  if (/WITH t AS .*pgboss.*audit_events/.test(s)) return "the one statement (run, events, job, audit, NOTIFY)";
  if (/audit_events/.test(s)) return "audit insert";
  if (/pg_notify/.test(s) && /vigil_schedules|^SELECT pg_notify/.test(s)) return "notify";
  if (/INSERT INTO runs|WITH ins AS|WITH t AS/.test(s)) return "run insert";
  if (/^SELECT clock_timestamp/.test(s)) return "db now";
  if (/FROM schedules|schedules s/.test(s)) return "schedule read";
  if (/pgboss|INSERT INTO .*job/i.test(s)) return "pg-boss job insert";
  return s.slice(0, 24);
}

export default async function latencyBench(): Promise<void> {
  const samples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
  const httpMode = process.env.BENCH_LATENCY_HTTP ?? "auto";
  let withApi = httpMode !== "off" && buildIsCurrent();
  if (httpMode === "build" && !withApi) {
    buildConsoleIfStale(say);
    withApi = true;
  }
  const server = await startTestPostgres({ durable: true });
  const vurl = await cloneTemplate(server.adminUrl, "bench_latency_vigil");
  const gurl = await cloneTemplate(server.adminUrl, "bench_latency_graphile");
  process.env.DATABASE_URL = vurl;
  const pool = new pg.Pool({ connectionString: vurl, max: 2 });
  let workers: TestWorker[] = [];
  let consoleProc: Managed | null = null;
  let graphile: GraphileProcess[] = [];
  const { closePool } = await import("../core/db/pool");
  const { startBoss } = await import("../core/queue/boss");
  const { getLogger } = await import("../core/log");
  const boss = await startBoss({ connectionString: vurl, log: getLogger(), max: 2, supervise: false });
  const { makeWorkerUtils, Logger } = await import("graphile-worker");
  await migrateGraphile(gurl);
  const utils = await makeWorkerUtils({ connectionString: gurl, logger: new Logger(() => () => {}) });
  try {
    say(
      `machine: ${os.cpus().length} cores, load ${load()}; ${samples} samples per variant${withApi ? "" : " (api variant skipped: no current next build; BENCH_LATENCY_HTTP=build)"}`,
    );
    workers = await startWarmWorkers(vurl, 2, { VIGIL_WORKER_CONCURRENCY: "8", VIGIL_LATENCY_TRACE: "true" });
    graphile = await Promise.all(
      Array.from({ length: 2 }, () => startGraphileProcess(new URL(import.meta.url).pathname, gurl, { concurrency: 8, pollMs: 2000 })),
    );
    let api: { base: string; token: string } | null = null;
    if (withApi) {
      const c = await startBenchConsole(vurl, { env: { VIGIL_LOG_LEVEL: "warn" } });
      consoleProc = c.proc;
      api = { base: c.base, token: await createTestToken(vurl, "operator") };
    }
    const traces = workers.map((w) => new WorkerTrace(w));
    const { rows } = await pool.query(
      `INSERT INTO schedules (name, handler, trigger) VALUES ('latency', 'demo.noop', '{"kind":"once","at":"2099-01-01T00:00:00Z"}') RETURNING id`,
    );
    const scheduleId: string = rows[0].id;
    const { triggerNow } = await import("../core/schedules/trigger-now");
    const { systemActor } = await import("../core/auth/roles");
    timeStatements();

    async function vigilSample(variant: Variant): Promise<Hops> {
      statements.length = 0;
      const t0 = epochNow();
      let runId: string;
      if (variant === "api") {
        const res = await fetch(`${api!.base}/api/schedules/${scheduleId}/trigger`, {
          method: "POST",
          headers: { authorization: `Bearer ${api!.token}`, "content-type": "application/json" },
          body: JSON.stringify({ reason: "latency bench" }),
        });
        const body = (await res.json()) as { runId: string };
        if (res.status !== 200) throw new Error(`trigger answered ${res.status}: ${JSON.stringify(body)}`);
        runId = body.runId;
      } else {
        recording = true;
        try {
          runId = (
            await triggerNow(scheduleId, { reason: "latency bench" }, systemActor("bench"), { boss: variant === "core" ? boss : null })
          ).runId!;
        } finally {
          recording = false;
        }
      }
      const t1 = epochNow();
      const hops: Hops = { "call → answered": t1 - t0 };
      for (const s of statements) hops[`  stmt: ${s.label}`] = (hops[`  stmt: ${s.label}`] ?? 0) + s.ms;
      // The start is awaited in the workers' trace lines (this process's memory), and the run's row is read once after it:
      // polling the database every few ms while the run is on its way would spend the shared cores on the very path
      // measured, which graphile-worker's samples (awaiting a line on stdout) do not.
      const ev = await waitFor(
        "the handler start in a worker's trace",
        () => {
          for (const t of traces) {
            t.pull();
            const start = t.events.find((e) => e.hop === "handler_start" && e.runIds?.includes(runId));
            if (start) return { t, start };
          }
          return undefined;
        },
        { timeoutMs: 30_000, intervalMs: 2 },
      ).catch(async (err: Error) => {
        // What the database and the workers say is the only clue to why the run never started: keep it with the error.
        const { rows: st } = await pool.query(
          `SELECT r.state, r.started_at IS NOT NULL AS started, j.name AS queue, j.state AS job_state
             FROM runs r LEFT JOIN pgboss.job j ON (j.data->>'runId')::uuid = r.id WHERE r.id = $1`,
          [runId],
        );
        const tails = workers
          .map((w, i) => `worker ${i}, its lines naming the run:\n${w.logs.filter((l) => l.includes(runId)).join("\n")}`)
          .join("\n");
        throw new Error(`${err.message}: run ${runId} ${JSON.stringify(st)}\n${tails}`, { cause: err });
      });
      const db = await waitFor(
        "the triggered run to start",
        async () =>
          (
            await pool.query<{ planned: number; enqueued: number; started: number }>(
              `SELECT extract(epoch FROM planned_at)::float8 * 1000 AS planned, extract(epoch FROM enqueued_at)::float8 * 1000 AS enqueued,
                      extract(epoch FROM started_at)::float8 * 1000 AS started
                 FROM runs WHERE id = $1 AND started_at IS NOT NULL`,
              [runId],
            )
          ).rows[0],
        { timeoutMs: 5_000, intervalMs: 5 },
      );
      const evs = ev.t.events;
      const iFetched = evs.findIndex((e) => e.hop === "fetched" && e.runIds?.includes(runId));
      let iFetch = iFetched;
      while (iFetch >= 0 && evs[iFetch]!.hop !== "fetch") iFetch--;
      const notify = evs.find((e) => e.hop === "notify" && e.at >= t0);
      const claimed = evs.find((e) => e.hop === "claimed" && e.runIds?.includes(runId));
      const posted = evs.find((e) => e.hop === "posted" && e.runIds?.includes(runId));
      const fetchAt = iFetch >= 0 ? evs[iFetch]!.at : NaN;
      const fetchedAt = iFetched >= 0 ? evs[iFetched]!.at : NaN;
      // What the other workers did meanwhile: each hears the same NOTIFY and races for the job; a queue fetch of theirs
      // before the start (a lost race used to fall back to one) runs on the cores the winner's claim needs.
      for (const t of traces) t.pull();
      const othersFetches = traces
        .filter((t) => t !== ev.t)
        .reduce((n, t) => n + t.events.filter((e) => e.hop === "fetched" && e.at >= t0 && e.at <= ev.start.at).length, 0);
      Object.assign(hops, {
        "call → run row written (DB clock)": db.planned - t0,
        "run written → enqueued": db.enqueued - db.planned,
        "call → NOTIFY heard by the worker": notify && notify.at <= fetchAt ? notify.at - t0 : NaN,
        "NOTIFY heard → fetch sent": notify && notify.at <= fetchAt ? fetchAt - notify.at : NaN,
        "fetch round trip": fetchedAt - fetchAt,
        "fetched → claimed": (claimed?.at ?? NaN) - fetchedAt,
        "claimed → handed to thread": (posted?.at ?? NaN) - (claimed?.at ?? NaN),
        "handed → handler started": ev.start.at - (posted?.at ?? NaN),
        "call → started_at (DB, claim)": db.started - t0,
        TOTAL: ev.start.at - t0,
      });
      hops["other workers' fetches before the start (count)"] = othersFetches;
      for (const t of traces) t.events.splice(0, t.events.length - 200);
      return hops;
    }

    async function graphileSample(): Promise<number> {
      const started = Promise.race(graphile.map((p) => p.nextStart()));
      const t0 = epochNow();
      await utils.addJob("noop", {});
      return (await started) - t0;
    }

    const withPlanner = process.env.BENCH_LATENCY_PLANNER !== "off";
    const variants: Variant[] = ["core", ...(withApi ? (["api"] as const) : []), ...(withPlanner ? (["planner"] as const) : [])];
    const got = new Map<Variant, Hops[]>(variants.map((v) => [v, []]));
    const g: number[] = [];
    const pause = () => new Promise((res) => setTimeout(res, 20 + Math.random() * 30)); // not in step with any poll
    const loads: number[] = [];
    for (let i = 0; i < samples + 5; i++) {
      for (const v of variants) {
        const h = await vigilSample(v);
        if (i >= 5) got.get(v)!.push(h);
        await pause();
      }
      const x = await graphileSample();
      if (i >= 5) g.push(x);
      await pause();
      if (i % 20 === 0) loads.push(os.loadavg()[0]!);
    }

    const idleSamples = Number(process.env.BENCH_LATENCY_IDLE_SAMPLES ?? 3);
    const idleVigil: number[] = [];
    const idleGraphile: number[] = [];
    for (let i = 0; i < idleSamples; i++) {
      await new Promise((res) => setTimeout(res, IDLE_PAUSE_MS));
      idleVigil.push((await vigilSample("core")).TOTAL!);
      idleGraphile.push(await graphileSample());
    }

    const gp50 = percentile(g, 50);
    say(`load (1-min) during the run: min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)}; now ${load()}`);
    say(`graphile-worker addJob → task start: ${fmt(g)} (n=${g.length})`);
    for (const v of variants) {
      const hs = got.get(v)!;
      const keys = [...new Set(hs.flatMap((h) => Object.keys(h)))];
      const title = {
        core: "core triggerNow (like for like)",
        api: "POST /api/schedules/:id/trigger",
        planner: "via the planner (before)",
      }[v];
      say(`--- Vigil ${title}: trigger → handler start ${fmt(hs.map((h) => h.TOTAL!))}`);
      for (const k of keys) {
        if (k === "TOTAL") continue;
        const xs = hs.map((h) => h[k]).filter((x): x is number => x !== undefined && Number.isFinite(x));
        if (k.endsWith("(count)")) {
          say(`    ${k.padEnd(38)} mean ${(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)).toFixed(2)}, max ${Math.max(...xs)}`);
          continue;
        }
        say(`    ${k.padEnd(38)} ${fmt(xs)}${xs.length < hs.length ? ` (n=${xs.length})` : ""}`);
      }
      const tot = hs.map((h) => h.TOTAL!);
      say(
        `    Vigil ${v} / graphile-worker: p50 ×${(percentile(tot, 50) / gp50).toFixed(2)}${v === "core" ? " (goal ≤ 1.5)" : ""}, p95 ×${(percentile(tot, 95) / percentile(g, 95)).toFixed(2)}`,
      );
    }
    if (idleSamples > 0) {
      const each = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(", ");
      say(
        `--- after a quiet spell of ${IDLE_PAUSE_MS / 1000} s (n=${idleSamples}): Vigil core trigger → handler start [${each(idleVigil)}] ms, ` +
          `graphile-worker addJob → start [${each(idleGraphile)}] ms; medians ×${(percentile(idleVigil, 50) / percentile(idleGraphile, 50)).toFixed(2)}`,
      );
    }
  } finally {
    if (consoleProc) await terminate(consoleProc);
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(graphile.map((p) => p.stop()));
    await utils.release();
    await boss.stop({ graceful: false, close: true });
    await pool.end();
    await closePool();
    await dropDatabase(server.adminUrl, vurl).catch(() => undefined);
    await dropDatabase(server.adminUrl, gurl).catch(() => undefined);
    await server.stop();
  }
}

runBenchWhenMain(import.meta.url, "latency.bench", latencyBench, graphileWorkerMain);
