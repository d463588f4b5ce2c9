import type { Queryable } from "../db/pool";
import { getPool } from "../db/pool";
import { NotFoundError } from "../errors";
import { USER_COLUMNS, toUserRecord, type UserRecord } from "./user-record";

export async function listUsers(db: Queryable = getPool()): Promise<UserRecord[]> {
  const { rows } = await db.query(`SELECT ${USER_COLUMNS} FROM users ORDER BY email`);
  return rows.map(toUserRecord);
}

/** Locks the row when `forUpdate` so a concurrent change cannot interleave. */
export async function getUserOrThrow(db: Queryable, id: string, forUpdate = false): Promise<UserRecord> {
  const { rows } = await db.query(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 ${forUpdate ? "FOR UPDATE" : ""}`, [id]);
  if (!rows[0]) throw new NotFoundError("User", id);
  return toUserRecord(rows[0]);
}
