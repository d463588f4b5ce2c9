// The database handle a handler gets. Each executor thread keeps one warm connection (bounded:
// one per slot); before an attempt's first statement it is re-tagged application_name
// `vigil-run-<runId>`, so a timeout, cancel or reaper can find and terminate exactly that
// attempt's session. A connection that failed is discarded, never reused.
import pg from "pg";
import type { HandlerContext, HandlerDb, HandlerTransactionalDb } from "./handler-context";
import { runOnce } from "./run-once.ts";
import { runSessionTag } from "./run-session-tag.ts";

export interface RunDb {
  db: HandlerTransactionalDb;
  once: HandlerContext["once"];
  /** Refuses further statements from this attempt (e.g. from work the handler left running). */
  close(): void;
}

export interface ThreadDb {
  forRun(runId: string): RunDb;
  end(): Promise<void>;
}

const TAGGED = Symbol("vigil.applicationName");
type TaggedClient = pg.PoolClient & { [TAGGED]?: string };

export function createThreadDb(databaseUrl: string): ThreadDb {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, application_name: "vigil-run-idle", idleTimeoutMillis: 60_000 });
  // A session terminated by a kill or by chaos must surface as the query's error, not crash the thread.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));

  return {
    forRun(runId) {
      const tag = runSessionTag(runId);
      let closed = false;
      const withClient = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
        if (closed) throw new Error("this attempt has ended; its database handle is closed");
        const client = (await pool.connect()) as TaggedClient;
        let broken: Error | undefined;
        const onError = (err: Error) => {
          broken ??= err;
        };
        client.on("error", onError);
        try {
          if (client[TAGGED] !== tag) {
            await client.query("SELECT set_config('application_name', $1, false)", [tag]);
            client[TAGGED] = tag;
          }
          return await fn(client);
        } catch (err) {
          broken ??= err as Error;
          throw err;
        } finally {
          client.removeListener("error", onError);
          // A failed statement may have left the session mid-transaction or dead: do not reuse it.
          client.release(broken);
        }
      };
      const wrap = (c: Pick<pg.PoolClient, "query">): HandlerDb => ({
        query: async (text, values) => {
          const r = await c.query(text, values);
          return { rows: r.rows, rowCount: r.rowCount };
        },
      });
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
        close() {
          closed = true;
        },
      };
    },
    end: () => pool.end().catch(() => undefined),
  };
}
