// ctx.once: the effect and its marker commit in one transaction. A second attempt (or a second
// delivery) that reaches the same key either blocks on the first one's uncommitted marker and then
// sees it, or sees the committed marker at once; either way fn does not run again.
import type pg from "pg";
import type { HandlerDb, OnceOutcome } from "./handler-context";

export const MAX_ONCE_KEY_LENGTH = 500;

export async function runOnce<T>(
  client: Pick<pg.PoolClient, "query">,
  marker: { key: string; runId: string },
  fn: (tx: HandlerDb) => Promise<T>,
): Promise<OnceOutcome<T>> {
  if (!marker.key || marker.key.length > MAX_ONCE_KEY_LENGTH) {
    throw new Error(`once() key must be 1..${MAX_ONCE_KEY_LENGTH} characters`);
  }
  await client.query("BEGIN");
  try {
    const { rowCount } = await client.query(`INSERT INTO once_markers (key, run_id) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [
      marker.key,
      marker.runId,
    ]);
    if (rowCount === 0) {
      await client.query("ROLLBACK");
      return { ran: false };
    }
    const tx: HandlerDb = {
      query: async (text, values) => {
        const r = await client.query(text, values);
        return { rows: r.rows, rowCount: r.rowCount };
      },
    };
    const value = await fn(tx);
    await client.query("COMMIT");
    return { ran: true, value };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
