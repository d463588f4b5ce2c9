// Dry runs do the real work in a transaction and roll it back, so what they report is exactly what the
// real action would do at that moment (same code path, same locks, same conflicts), not an estimate.
import type pg from "pg";
import { getPool, type Queryable } from "../db/pool";

/**
 * Runs fn in a transaction and commits it, or rolls it back when `dryRun` is set; returns fn's result either way.
 * With `tx` (the caller's open transaction) it nests in a savepoint, so a dry run leaves the caller's work intact.
 */
export async function inTransaction<T>(opts: { dryRun?: boolean; tx?: Queryable }, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  if (opts.tx) {
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
  const client: pg.PoolClient = await getPool().connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query(opts.dryRun ? "ROLLBACK" : "COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
