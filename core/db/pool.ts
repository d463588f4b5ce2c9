// The pg connection pool and the few helpers every SQL-owning module uses.
//
// Passing the database handle — one convention for core/ and worker/:
// - A function that runs its statements on the handle it is given takes it FIRST and required: `db: Queryable`
//   (the pool, or a client inside the caller's transaction). Nothing defaults to the global pool behind its
//   caller's back: the process edge (an API route or page with getPool(), the worker's main) says which handle.
//   (dbNow keeps its default: it only reads the clock.)
// - A function that must check out connections of its own (opens transactions, LISTENs, works in parallel) takes
//   `pool: pg.Pool` first, for the same reason. (withTransaction, a wrapper, takes its callback first and the pool
//   second, also required.)
// - An operation that is a transaction of its own (an operator action: createSchedule, pauseSchedule, updateUser,
//   revokeApiToken…) takes its handle LAST and optional, in `opts: { db?: Queryable }`: given, the operation joins
//   that open transaction in a savepoint; left out, it opens its own on the pool (inTransaction below). One that
//   needs connections of its own (login, ensureFirstAdmin) takes `opts.pool` there instead.
// - Rows are typed where the SQL is (Queryable insists): `db.query<Row>(sql, values)`, the Row type naming the
//   selected columns as Postgres returns them (snake_case; timestamps as Date, bigint as number, numeric as
//   string), beside the SQL or, for a column list shared by several statements (USER_COLUMNS), beside that list.
import pg from "pg";
import { getEnv, requireDatabaseUrl } from "../env";
import { isConcurrencyFailure } from "../errors";
import { getLogger } from "../log";

// Timestamps travel as ISO strings → Date; bigint counts (COUNT(*), ledger amounts) as JS numbers,
// which is exact below 2^53 — far beyond any balance or count Vigil stores.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * A pool or a client (the caller's transaction). pg's own `query` returns rows of `any`; this one returns rows of
 * `unknown` values unless the caller names the row type, so a column cannot be read untyped: `db.query<Row>(…)`.
 */
export interface Queryable {
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string | pg.QueryConfig,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

let pool: pg.Pool | undefined;

/**
 * Connections a pool keeps open however long they idle (pg-pool closes the others after 10 s). Opening one costs a
 * backend start, authentication and cold caches — tens of ms on a busy machine, against ~1 ms for a statement — and
 * the named statements prepared on it. Without it, a run triggered after a quiet spell paid that twice on its way to
 * its handler: the console's trigger statement and the dispatcher's claim each opened a connection.
 */
export const WARM_CONNECTIONS = 1;

export function getPool(): pg.Pool {
  if (!pool) {
    pool = new pg.Pool({
      connectionString: requireDatabaseUrl(),
      max: getEnv().VIGIL_DB_POOL_MAX,
      min: Math.min(WARM_CONNECTIONS, getEnv().VIGIL_DB_POOL_MAX),
      application_name: "vigil",
    });
    survivesLostConnections(pool, "idle client error");
  }
  return pool;
}

export function survivesLostConnections(p: pg.Pool, label: string): void {
  // An idle client losing its connection (server restart, terminated backend) must not crash the process.
  p.on("error", (err) => console.error(`[db] ${label}:`, err.message));
  // pg-pool stops watching a client while it is checked out: without a listener of its own, a
  // connection terminated between two statements (failover, pg_terminate_backend) would crash the
  // process with an unhandled 'error'. The error still reaches whoever uses the client next.
  p.on("connect", (client) => client.on("error", () => undefined));
}

/**
 * A pool for the dispatcher's pg-boss fetch (worker/dispatcher.ts), whose commits do not wait for the WAL flush
 * (synchronous_commit = off): a fetch only marks jobs active, and it is followed by the run's claim, a durable
 * commit whose flush writes the fetch's WAL before it (WAL is flushed in order). A crash that loses a fetch
 * therefore loses the claim after it too, and the job is simply delivered again — nothing started on a fetch
 * alone. It saves one disk flush on the way from a due run to its handler.
 */
export function createFetchPool(connectionString: string, max: number): pg.Pool {
  const p = new pg.Pool({
    connectionString,
    max,
    min: Math.min(WARM_CONNECTIONS, max),
    application_name: "vigil-fetch",
    options: "-c synchronous_commit=off",
  });
  survivesLostConnections(p, "idle fetch client error");
  return p;
}

/**
 * A pool for the worker's hot one-statement paths (core/runs claim-free-runs.ts, finish-free-runs.ts). They are
 * named (prepared) statements whose plan is fixed by their shape (primary-key lookups), but the planner
 * would keep custom-planning them, which cost more than running them; these connections always use the
 * generic plan (for every parameterised statement, which is why nothing else runs on them).
 */
export function createHotPathPool(connectionString: string, max: number): pg.Pool {
  const hot = new pg.Pool({
    connectionString,
    max,
    min: Math.min(WARM_CONNECTIONS, max),
    application_name: "vigil-hot-path",
    options: "-c plan_cache_mode=force_generic_plan",
  });
  survivesLostConnections(hot, "idle hot-path client error");
  return hot;
}

let hotPathPool: pg.Pool | undefined;

/**
 * This process's own hot-path pool (createHotPathPool: every statement on the generic plan), for its one-statement
 * paths outside the worker: a manual trigger's statement (core/runs/plan/insert-triggered-run.ts). On the main pool
 * that statement (five CTEs, pg-boss's insert among them) was planned afresh on every call — the plan cache kept
 * choosing a custom plan — which cost ~0.3–1 ms of CPU on the trigger's way to its NOTIFY.
 */
export function getHotPathPool(): pg.Pool {
  hotPathPool ??= createHotPathPool(requireDatabaseUrl(), Math.min(2, getEnv().VIGIL_DB_POOL_MAX));
  return hotPathPool;
}

export async function closePool(): Promise<void> {
  const p = pool;
  const hot = hotPathPool;
  pool = undefined;
  hotPathPool = undefined;
  await Promise.all([p?.end(), hot?.end()]);
}

/** Runs fn in a new transaction on a connection of `from`: committed when fn resolves (rolled back instead with `rollback`). */
export async function withTransaction<T>(
  fn: (client: pg.PoolClient) => Promise<T>,
  from: pg.Pool,
  opts: { rollback?: boolean } = {},
): Promise<T> {
  const client = await from.connect();
  // A checked-out client has no error listener (pg-pool only watches idle ones): a connection
  // terminated between two statements would emit an unhandled 'error' and crash the process.
  // Record it instead; the next statement fails with it, and the client is discarded on release.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost ??= err;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query(opts.rollback ? "ROLLBACK" : "COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.removeListener("error", onError);
    client.release(lost);
  }
}

/** The database clock: every scheduling decision compares against this, never the process clock. */
export async function dbNow(db: Queryable = getPool()): Promise<Date> {
  const { rows } = await db.query<{ now: Date }>("SELECT clock_timestamp() AS now");
  return rows[0]!.now;
}

/**
 * The one way a domain operation takes an optional transaction: with `tx` (the caller's open transaction) it
 * nests in a savepoint, so its failure — or a dry run — leaves the caller's work intact; without, it runs in a
 * transaction of its own. `dryRun` does the real work and rolls it back, so what a dry run reports is exactly
 * what the action would do at that moment (same code path, same locks, same conflicts), not an estimate.
 */
export async function inTransaction<T>(opts: { tx?: Queryable; dryRun?: boolean }, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  if (!opts.tx) return retryConcurrencyFailures(() => withTransaction(fn, getPool(), { rollback: opts.dryRun }));
  const tx = opts.tx;
  await tx.query("SAVEPOINT vigil_action");
  try {
    const result = await fn(tx);
    await tx.query(opts.dryRun ? "ROLLBACK TO SAVEPOINT vigil_action" : "RELEASE SAVEPOINT vigil_action");
    return result;
  } catch (err) {
    await tx.query("ROLLBACK TO SAVEPOINT vigil_action").catch(() => undefined);
    throw err;
  }
}

const CONCURRENCY_ATTEMPTS = 3;

/**
 * A transaction of its own that PostgreSQL rolled back as a deadlock victim or a serialisation failure is run
 * again (it did nothing: fn's writes all went through its transaction), a few times after a short random pause so
 * the contenders do not meet again in step. Still failing, the error goes up and is answered 409 (core/errors.ts).
 * A nested call (opts.tx) is not retried here: only the owner of the whole transaction can run it again.
 */
async function retryConcurrencyFailures<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= CONCURRENCY_ATTEMPTS || !isConcurrencyFailure(err)) throw err;
      getLogger().warn({ code: (err as { code?: string }).code, attempt }, "transaction lost a concurrency race: running it again");
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}
