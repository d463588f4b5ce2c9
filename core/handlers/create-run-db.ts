// The database handle a handler gets: at most one connection per attempt (bounded resources),
// opened lazily, tagged `vigil-run-<runId>`, closed when the attempt ends.
import pg from "pg";
import type { HandlerContext, HandlerDb, HandlerTransactionalDb } from "./handler-context";
import { runOnce } from "./run-once";
import { runSessionTag } from "./run-session-tag";

export interface RunDb {
  db: HandlerTransactionalDb;
  once: HandlerContext["once"];
  close(): Promise<void>;
}

export function createRunDb(databaseUrl: string, runId: string): RunDb {
  let pool: pg.Pool | undefined;
  const getPool = () => {
    if (!pool) {
      pool = new pg.Pool({ connectionString: databaseUrl, max: 1, application_name: runSessionTag(runId), idleTimeoutMillis: 0 });
      // A session terminated by a kill or by chaos must surface as the query's error, not crash the thread.
      pool.on("error", () => undefined);
    }
    return pool;
  };
  const wrap = (c: Pick<pg.PoolClient, "query">): HandlerDb => ({
    query: async (text, values) => {
      const r = await c.query(text, values);
      return { rows: r.rows, rowCount: r.rowCount };
    },
  });
  const withClient = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await getPool().connect();
    let broken: Error | undefined;
    try {
      return await fn(client);
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A failed statement may have left the session mid-transaction or dead: do not reuse it.
      client.release(broken);
    }
  };
  return {
    db: {
      query: (text, values) => withClient((c) => wrap(c).query(text, values)),
      transaction: (fn) =>
        withClient(async (c) => {
          await c.query("BEGIN");
          try {
            const v = await fn(wrap(c));
            await c.query("COMMIT");
            return v;
          } catch (err) {
            await c.query("ROLLBACK").catch(() => undefined);
            throw err;
          }
        }),
    },
    once: (key, fn) => withClient((c) => runOnce(c, { key, runId }, fn)),
    async close() {
      const p = pool;
      pool = undefined;
      await p?.end().catch(() => undefined);
    },
  };
}
