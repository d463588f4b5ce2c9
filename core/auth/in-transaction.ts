// Lets a domain operation join the caller's transaction (pass its client) or run in its own.
import { withTransaction, type Queryable } from "../db/pool";

export function inTransaction<T>(db: Queryable | undefined, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db ? fn(db) : withTransaction(fn);
}
