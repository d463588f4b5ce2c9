// The dispatcher starts due runs within milliseconds. It learns due times from NOTIFY 'vigil_due'
// (sent with every job) and from the runs table, converts them to this process's monotonic clock
// through a measured database-clock offset (never the wall clock), and fetches exactly when a run
// is due; a poll every second catches anything a lost notification hid. Each fetched batch is claimed
// (core/runs/claim/claim-free-runs.ts: one statement for runs free to start, whatever their overlap policy or
// group; claim-run.ts: a transaction under full locks for the rest) and the runs that may start are handed to the executor.
// Runs are routed by handler: each handler has its own pg-boss queue (core/queue/boss.ts) and this
// dispatcher fetches only from the queues of the handlers its worker serves, and among those only
// from queues that may hold due jobs (woken by a due time naming the handler, by the poll, or still
// full from the last fetch), so an idle handler costs no fetches between polls.
// While a queue is backed up (the last take filled every free slot), the next take is a step
// (core/runs/step/run-step.ts): the outcomes that freed the slots, the take by key and the claim in one call and
// one commit; boss.fetch takes whatever the step did not (and everything outside a backlog).
import { z } from "zod";
import type pg from "pg";
import type { Job, PgBoss } from "pg-boss";
import { withTransaction } from "../core/db/pool";
import type { Logger } from "../core/log";
import { runQueueFor } from "../core/queue/boss";
import { DUE_CHANNEL, parseDueNotice } from "../core/queue/send-run-job";
import { claimRuns, type ClaimRequest, type ClaimResult } from "../core/runs/claim/claim-run";
import { claimFreeRuns } from "../core/runs/claim/claim-free-runs";
import { runStep, type StepResult } from "../core/runs/step/run-step";
import type { Executor } from "./executor/executor";
import { createPgListener } from "./lib/pg-listener";
import { claimNotifiedJob, type NotifiedJob } from "./claim-notified-job";
import { traceHop } from "./lib/latency-trace";
import { DueTimer, type DueHandlers } from "./lib/due-timer";
import type { WorkerService } from "./service";

const runJobDataSchema = z.object({ runId: z.uuid(), attempt: z.number().int().min(1) });
const CLAIM_TRIES = 4;
/**
 * While jobs queue up (the last fetch filled every free slot), a slot that frees does not fetch on its own:
 * the dispatcher waits until every slot is free or this long, so one fetch and one claim serve a whole
 * pool's worth of runs. Runs that are waiting anyway start at most this much later; with nothing queued, a
 * due run is fetched the moment it is due. (Waiting for half the slots made batches of 4–6 runs in a
 * fan-out: the fetch, the claim and the runs trigger cost mostly per call, and at 10,000 queued jobs a
 * pg-boss fetch costs several ms whatever its batch size.)
 */
const BACKLOG_COALESCE_MS = 10;
const RETRYABLE = new Set(["40P01", "40001", "55P03", "57P01", "08006", "08003"]);

export interface Dispatcher extends WorkerService {
  /** Fetch now if slots are free. */
  poke(): void;
}

export function createDispatcher(opts: {
  pool: pg.Pool;
  /** For the one-statement claim (core/db/pool.ts createHotPathPool). */
  hotPool: pg.Pool;
  /** For the pg-boss fetch, without waiting for the WAL flush (core/db/pool.ts createFetchPool); pg-boss's own pool without it. */
  fetchPool?: pg.Pool;
  boss: PgBoss;
  executor: Executor;
  workerId: string;
  connectionString: string;
  /** The handlers this worker serves: their queues are the only ones it fetches from. */
  handlers: readonly string[];
  log: Logger;
  pollMs?: number;
}): Dispatcher {
  const log = opts.log.child({ service: "dispatcher" });
  let stopped = false;
  let fetching = false;
  let again = false;
  let backlog = false;
  let coalesceTimer: NodeJS.Timeout | undefined;
  let forced = false;
  const inFlight = new Set<Promise<void>>();
  const served = new Set(opts.handlers);
  /** Handlers whose queues may hold due jobs, and a count of wake-ups per handler (see fetchFrom). */
  const ready = new Set<string>();
  const wakes = new Map<string, number>();
  let rotation = 0;
  const wake = (handlers: DueHandlers) => {
    for (const h of handlers === "all" ? served : handlers) {
      if (!served.has(h)) continue;
      ready.add(h);
      wakes.set(h, (wakes.get(h) ?? 0) + 1);
    }
    poke();
  };
  const due = new DueTimer(opts.pool, log, wake);
  const fetchPool = opts.fetchPool;
  const fetchDb = fetchPool && { executeSql: (text: string, values?: unknown[]) => fetchPool.query(text, values) };
  let pollTimer: NodeJS.Timeout | undefined;
  // While the queues are backed up, successes wait a moment for the next step instead of a statement of their own.
  opts.executor.finisher.setStepper({ stepSoon: () => backlog && !stopped && ready.size > 0, poke });

  const listener = createPgListener({
    connectionString: opts.connectionString,
    channels: [DUE_CHANNEL],
    name: "vigil-dispatcher",
    log,
    onNotify: (_c, payload) => {
      traceHop("notify");
      const notice = parseDueNotice(payload);
      // A notice that names its job (a manual trigger's, due the instant it was sent) is taken at once, without asking
      // this process's estimate of the database clock whether it is due: the claim's own statement checks that in the
      // database (start_after <= now) and hands a job not yet due back to the due timer. Asked here, an estimate a few
      // ms behind — the half round trip it is corrected by, on a busy machine — sent the run the slow way (timer,
      // queue fetch, then the claim) instead of one statement (issue 16).
      if (notice.handler !== null && notice.jobId !== null && served.has(notice.handler)) {
        takeNotifiedJob(notice.handler, notice.jobId, notice.dueMs);
      } else if (notice.handler === null || served.has(notice.handler)) due.add(notice.dueMs, notice.handler);
    },
    onConnect: () => {
      void due.refreshFromRuns();
      wake("all");
    },
  });

  function poke(): void {
    if (stopped) return;
    if (fetching) {
      again = true;
      return;
    }
    void fetchLoop();
  }

  async function fetchLoop(): Promise<void> {
    fetching = true;
    try {
      for (;;) {
        again = false;
        if (backlog && !forced && opts.executor.freeSlots() < opts.executor.capacity()) {
          coalesceTimer ??= setTimeout(() => {
            coalesceTimer = undefined;
            forced = true;
            poke();
          }, BACKLOG_COALESCE_MS);
          break;
        }
        forced = false;
        clearTimeout(coalesceTimer);
        coalesceTimer = undefined;
        const n = opts.executor.reserve(Number.MAX_SAFE_INTEGER);
        if (n === 0 || stopped) {
          opts.executor.unreserve(n, false);
          break;
        }
        const got = await fetchFrom(n);
        opts.executor.unreserve(n - got, false);
        backlog = got === n;
        due.fetched(got);
        if (got < n && !again) break;
      }
    } finally {
      fetching = false;
    }
  }

  /**
   * Takes up to n jobs from the ready queues and hands them to their claims; returns how many it took. Queues take
   * turns at which goes first so a busy handler does not starve the others. While the queues are backed up (the last
   * take filled every slot), a queue is first taken from by a step (stepFrom), which carries the outcomes held for it;
   * whatever the step does not take, and every take outside a backlog, is boss.fetch's. A queue that returns fewer
   * jobs than asked is empty for now and leaves the ready set — unless it was woken again while its take was in flight.
   */
  async function fetchFrom(n: number): Promise<number> {
    const order = [...ready];
    if (order.length === 0) return 0;
    const first = rotation++ % order.length;
    let got = 0;
    for (let i = 0; i < order.length && got < n; i++) {
      const handler = order[(first + i) % order.length]!;
      const asked = n - got;
      const wokenBefore = wakes.get(handler);
      let k = backlog ? await stepFrom(handler, asked) : 0;
      if (k < asked) k += await bossFetch(handler, asked - k);
      got += k;
      if (k < asked && wakes.get(handler) === wokenBefore) ready.delete(handler);
    }
    return got;
  }

  /** boss.fetch from the handler's queue, the fetched jobs handed to the claim; returns how many. */
  async function bossFetch(handler: string, asked: number): Promise<number> {
    try {
      traceHop("fetch");
      const got = await opts.boss.fetch(runQueueFor(handler), { batchSize: asked, ...(fetchDb ? { db: fetchDb } : {}) });
      traceHop("fetched", runIdsOf(got));
      if (got.length > 0) track(handle(got));
      return got.length;
    } catch (err) {
      log.warn({ err, handler }, "fetch failed");
      return 0;
    }
  }

  /**
   * One step (core/runs/step/run-step.ts): the held outcomes recorded, up to `asked` due jobs of the handler's queue
   * taken by key and their runs claimed, in one call and one commit. Returns how many jobs it took; what it left
   * undecided goes the usual ways (outcomes back to the batcher, runs to the claim under full locks).
   */
  async function stepFrom(handler: string, asked: number): Promise<number> {
    const finisher = opts.executor.finisher;
    const settler = opts.executor.settler;
    const held = finisher.takeHeld();
    let r: StepResult;
    try {
      traceHop("fetch");
      r = await runStep(opts.hotPool, {
        queue: runQueueFor(handler),
        handler,
        take: asked,
        workerId: opts.workerId,
        finishes: held.reqs,
        queueOfJob: (id) => settler.queueOf(id),
      });
    } catch (err) {
      log.warn({ err, handler }, "step failed; taking and recording outcomes the usual ways");
      finisher.afterStep(held, null, new Set());
      return 0;
    }
    for (const id of r.completedJobs) settler.forget(id);
    finisher.afterStep(held, r.finished, r.completedJobs);
    const jobs = r.taken.map((t) => t.job as Job<unknown>);
    if (jobs.length > 0) {
      traceHop("fetched", runIdsOf(jobs));
      traceHop("claimed", runIdsOf(jobs));
      track(
        handle(
          jobs,
          r.taken.map((t) => t.claimed),
        ),
      );
    }
    return jobs.length;
  }

  /**
   * A due job the NOTIFY names (a manual trigger's): taken by primary key and its run claimed in one statement
   * (claim-notified-job.ts) on a slot reserved for it. When another dispatcher has it, that is all. When it cannot be
   * done here for another reason (no free slot, the job is not there to take, an error), the notice goes the usual
   * way: a fetch from the handler's queue.
   */
  function takeNotifiedJob(handler: string, jobId: string, dueMs: number): void {
    if (stopped || opts.executor.reserve(1) === 0) {
      due.add(dueMs, handler);
      return;
    }
    traceHop("take_notified", [jobId]);
    track(
      (async () => {
        let got: NotifiedJob | "elsewhere" | null = null;
        try {
          traceHop("fetch");
          got = await claimNotifiedJob(opts.hotPool, runQueueFor(handler), jobId, opts.workerId);
        } catch (err) {
          log.debug({ err, jobId }, "could not take the notified job; fetching from its queue");
        }
        if (got === "elsewhere") {
          traceHop("notified_job_elsewhere");
          opts.executor.unreserve(1, false);
          return;
        }
        if (!got) {
          opts.executor.unreserve(1, false);
          due.add(dueMs, handler);
          return;
        }
        const runIds = runIdsOf([got.job as Job<unknown>]);
        traceHop("fetched", runIds);
        traceHop("claimed", runIds);
        await handle([got.job as Job<unknown>], [got.claimed]);
      })(),
    );
  }

  function track(p: Promise<void>): void {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  /**
   * Claims a fetched batch and hands the runs that may start to the executor. `claimed`: the claims already made
   * for these jobs (in job order; undefined where left to the claim under full locks).
   */
  async function handle(jobs: Job<unknown>[], claimed?: (ClaimResult | undefined)[]): Promise<void> {
    const reqs: ClaimRequest[] = [];
    let results: (ClaimResult | undefined)[] = [];
    jobs.forEach((job, j) => {
      opts.executor.settler.track(job);
      const data = runJobDataSchema.safeParse(job.data);
      if (data.success) {
        reqs.push({ runId: data.data.runId, attempt: data.data.attempt, jobId: job.id, workerId: opts.workerId });
        results.push(claimed?.[j]);
      } else {
        log.error({ jobId: job.id, data: job.data }, "job data is not a run job; failing it");
        opts.executor.unreserve(1, true);
        opts.executor.settler.settle({ jobId: job.id, how: "fail" });
      }
    });
    if (reqs.length === 0) return;
    // Runs free to start under every rule (whatever their overlap policy and group) are started by one
    // statement; the rest are decided under full locks.
    if (!claimed) {
      try {
        results = await claimFreeRuns(opts.hotPool, reqs);
      } catch (err) {
        log.debug({ err }, "one-statement claim failed; claiming the batch under full locks");
      }
      traceHop(
        "claimed",
        reqs.map((r) => r.runId),
      );
    }
    const rest = reqs.map((_, i) => i).filter((i) => results[i] === undefined);
    if (rest.length > 0) {
      const decided = await claimUnderLocks(rest.map((i) => reqs[i]!));
      rest.forEach((i, k) => {
        if (decided) results[i] = decided[k];
        else {
          opts.executor.unreserve(1, false); // the database is failing us: the next poll tries again
          opts.executor.settler.settle({ jobId: reqs[i]!.jobId, how: "fail" });
        }
      });
    }
    results.forEach((result, i) => {
      const req = reqs[i]!;
      if (!result) return;
      if (result.kind === "start") {
        opts.executor.begin(result.run, req.jobId);
      } else {
        // The delivery is done with; its run ended, waits for a slot (and will get a new job), or was a duplicate.
        opts.executor.unreserve(1, true);
        opts.executor.settler.settle({ jobId: req.jobId, how: "complete" });
        if (result.kind !== "waiting") log.debug({ runId: req.runId, outcome: result.kind }, "job delivered without starting a handler");
      }
    });
  }

  /** claimRuns in a transaction, retried on conflicts and dropped connections; undefined when it gave up. */
  async function claimUnderLocks(reqs: ClaimRequest[]): Promise<ClaimResult[] | undefined> {
    for (let i = 1; ; i++) {
      try {
        return await withTransaction((tx) => claimRuns(tx, opts.boss, reqs), opts.pool);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (i >= CLAIM_TRIES || (code && !RETRYABLE.has(code) && !/terminat|connection/i.test((err as Error).message))) {
          log.error({ err, runIds: reqs.map((r) => r.runId) }, "claim failed; the reaper will re-send the runs");
          return undefined;
        }
        await new Promise((r) => setTimeout(r, 20 * 2 ** i));
      }
    }
  }

  return {
    name: "dispatcher",
    poke,
    async start() {
      await due.start();
      await listener.start();
      const tick = () => {
        wake("all");
        pollTimer = setTimeout(tick, opts.pollMs ?? 1000);
      };
      tick();
    },
    async stop(deadlinePerf: number) {
      stopped = true;
      clearTimeout(pollTimer);
      clearTimeout(coalesceTimer);
      due.stop();
      await listener.stop();
      await Promise.all([...inFlight]);
      await opts.executor.stop(deadlinePerf);
    },
  };
}

function runIdsOf(jobs: Job<unknown>[]): string[] {
  return jobs.map((j) => (j.data as { runId?: string } | null)?.runId ?? "");
}
