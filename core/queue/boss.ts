// The pg-boss client. Vigil uses pg-boss as its durable queue (job per attempt, expiration as a
// hard backstop) but plans, times and guards runs itself; see worker/ for why.
//
// Routing: one pg-boss queue per handler ("vigil-run.<handler>"). A worker fetches only from the queues
// of the handlers it serves, so two workers with different handler sets never take each other's runs,
// and a run whose handler no live worker serves waits in its queue (visible, alerted) until one starts.
// A team assigned a worker pool has its runs in "vigil-run.<handler>/<pool>" (worker-pool.ts): only that pool's
// workers fetch them. Both forms start with RUN_QUEUE_PREFIX.
import { PgBoss } from "pg-boss";
import type { Logger } from "../log";
import pg from "pg";
import { getEnv } from "../env";
import { QUEUE_ROLE } from "../db/grants";

/** The single queue of releases before per-handler routing; its leftover jobs are re-sent by the stalled-run reaper. */
export const LEGACY_RUN_QUEUE = "vigil-run";
export const RUN_QUEUE_PREFIX = "vigil-run.";

/**
 * The queue of a handler's run jobs, by its queue key (worker-pool.ts runQueueKey: the handler, with "/<pool>" for a
 * pool's runs). Handler names (core/handlers/define-handler.ts) and pool names are valid queue names.
 */
export function runQueueFor(queueKey: string): string {
  return RUN_QUEUE_PREFIX + queueKey;
}

const known = new WeakMap<PgBoss, Set<string>>();

/**
 * Creates the run queues of these handlers unless they exist. Every sender calls it (a worker plans and
 * retries runs of handlers it does not serve), so it is cached per client: after the first call per
 * handler it costs nothing.
 */
export async function ensureRunQueues(boss: PgBoss, queueKeys: Iterable<string>): Promise<void> {
  let have = known.get(boss);
  if (!have) known.set(boss, (have = new Set()));
  for (const key of new Set(queueKeys)) {
    const name = runQueueFor(key);
    if (have.has(name)) continue;
    if (!(await boss.getQueue(name))) {
      await boss
        .createQueue(name, { policy: "standard", retryLimit: 0, deleteAfterSeconds: getEnv().VIGIL_RETENTION_JOBS_DAYS * 24 * 3600 })
        .catch(async (err) => {
          // Another worker created it first.
          if (!(await boss.getQueue(name))) throw err;
        });
    }
    have.add(name);
  }
}

/**
 * Whether this login acts as QUEUE_ROLE for pg-boss (core/db/grants.ts): it creates per-queue tables at run time,
 * which must belong to that role, not to whichever of the console or a worker created them, for both to use them.
 */
async function actsAsQueueRole(connectionString: string): Promise<boolean> {
  const c = new pg.Client({ connectionString, application_name: "vigil-boss" });
  await c.connect();
  try {
    const { rows } = await c.query<{ member: boolean }>(
      `SELECT NOT r.rolsuper AND pg_has_role(current_user, q.oid, 'MEMBER') AS member
         FROM pg_roles r, pg_roles q WHERE r.rolname = current_user AND q.rolname = $1`,
      [QUEUE_ROLE],
    );
    return rows[0]?.member === true;
  } finally {
    await c.end();
  }
}

export async function startBoss(opts: {
  connectionString: string;
  log: Logger;
  max?: number;
  supervise?: boolean;
  /** false: as the login itself (the owner installing pg-boss's schema at start). */
  asQueueRole?: boolean;
}): Promise<PgBoss> {
  const asQueue = opts.asQueueRole !== false && (await actsAsQueueRole(opts.connectionString));
  const boss = new PgBoss({
    connectionString: opts.connectionString,
    ...(asQueue ? { options: `-c role=${QUEUE_ROLE}` } : {}),
    application_name: "vigil-boss",
    max: opts.max ?? 4,
    // Vigil plans occurrences itself on the database clock; pg-boss's minute-grained cron is not used.
    schedule: false,
    supervise: opts.supervise ?? true,
    migrate: true,
  });
  // Attached before start(): an unhandled 'error' event would crash the worker.
  boss.on("error", (err: Error) => opts.log.error({ err }, "pg-boss error"));
  await boss.start();
  return boss;
}
