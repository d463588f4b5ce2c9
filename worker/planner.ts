// The planner service: runs in every worker (no single point of failure). It ticks about every second, and at
// once when a schedule changes (LISTEN 'vigil_schedules', NOTIFYed by create/edit/resume/trigger/backfill).
// All decisions are made in core/runs/plan/plan-tick.ts on the database clock; this file is process plumbing.
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "../core/log";
import { measurePlannerLag } from "../core/runs/plan/plan-lag";
import { runPlannerTick } from "../core/runs/plan/plan-tick";
import { enqueueDueRuns } from "../core/runs/plan/enqueue-due-runs";
import { SCHEDULES_CHANNEL } from "../core/schedules/notify-planner";
import { createPgListener } from "./lib/pg-listener";
import { every, type WorkerService } from "./service";

export interface PlannerService extends WorkerService {
  /** Planner lag measured at the last tick (ms), for the heartbeat; undefined before the first tick. */
  lagMs(): number | undefined;
  /**
   * Listed before the execution services: one tick that settles misfires from downtime before this worker's
   * dispatcher takes jobs (so the misfire policy, not a race with the claim, decides what runs). The planner
   * itself is listed after them: its ticks enqueue catch-up runs, whose fresh starting deadline begins then,
   * only once this worker can start them.
   */
  settle: WorkerService;
}

const SETTLE_PLAN_BUDGET_MS = 5_000;

export function createPlanner(opts: {
  pool: pg.Pool;
  boss: PgBoss;
  connectionString: string;
  horizonSeconds: number;
  log: Logger;
  tickMs?: number;
}): PlannerService {
  const log = opts.log.child({ service: "planner" });
  let lag: number | undefined;
  let pokeQueued = false;

  const tickMs = opts.tickMs ?? 1000;
  let lastFullTickEnd = -Infinity;
  const tick = async (catchUp = true) => {
    const poked = pokeQueued;
    pokeQueued = false;
    const started = performance.now();
    // Between full ticks (one a tickMs after the last one ended), a planning backlog is worked off in slices:
    // enqueue, plan, again. Counted from the end: a full tick that takes longer than tickMs on a busy database must
    // still leave slices between full ticks. A schedule change (poked) gets a full tick: a resume's catch-up run is
    // enqueued by it.
    const sliceOnly = catchUp && !poked && started - lastFullTickEnd < tickMs;
    // Woken by a schedule change, most often a trigger now: its manual run is enqueued first, so its job reaches a
    // dispatcher without waiting for the rest of the tick (planning, misfire sweep), which only concerns scheduled runs.
    if (poked && catchUp) await enqueueDueRuns(opts.pool, opts.boss);
    // The settling tick at start plans more in one go (as the planner did before slices), so that misfires from
    // downtime are decided before this worker's dispatcher starts; every later tick plans a bounded slice.
    const r = await runPlannerTick(opts.pool, opts.boss, {
      horizonSeconds: opts.horizonSeconds,
      catchUp,
      planBudgetMs: catchUp ? undefined : SETTLE_PLAN_BUDGET_MS,
      sliceOnly,
    });
    if (!sliceOnly) {
      lag = await measurePlannerLag(opts.pool);
      lastFullTickEnd = performance.now();
    }
    const ms = Math.round(performance.now() - started);
    // A planning backlog (many schedules created at once, a long downtime): the next tick starts at once rather than
    // a second later. Each tick enqueues due runs before it plans, so they never wait more than one slice.
    if (r.planBacklog && catchUp) loop.poke();
    if (r.missed + r.rescued + r.resumed > 0) log.info({ ...r, lagMs: lag, tickMs: ms }, "planner settled misfires");
    else if (r.planned + r.enqueued > 0) log.debug({ ...r, lagMs: lag, tickMs: ms }, "planner tick");
  };
  const loop = every(
    tickMs,
    () => tick(),
    (err) => log.error({ err }, "planner tick failed"),
  );
  const listener = createPgListener({
    connectionString: opts.connectionString,
    channels: [SCHEDULES_CHANNEL],
    name: "vigil-planner-listen",
    log,
    onNotify: () => {
      if (pokeQueued) return;
      pokeQueued = true;
      loop.poke();
    },
    // Notifications sent while the connection was down are lost: catch up with a tick.
    onConnect: () => loop.poke(),
  });

  return {
    name: "planner",
    async start() {
      await listener.start();
      loop.start();
    },
    async stop() {
      await listener.stop();
      await loop.stop();
    },
    lagMs: () => lag,
    settle: {
      name: "planner-settle",
      start: () => tick(false).catch((err) => log.error({ err }, "settling misfires at start failed")),
      stop: async () => {},
    },
  };
}
