import { getPool, type Queryable } from "../db/pool";
import { TOKEN_COLUMNS, toApiTokenRecord, type ApiTokenRecord } from "./api-token-record";

export async function listApiTokens(db: Queryable = getPool()): Promise<ApiTokenRecord[]> {
  const { rows } = await db.query(`SELECT ${TOKEN_COLUMNS} FROM api_tokens t ORDER BY t.revoked_at IS NOT NULL, t.created_at DESC`);
  return rows.map(toApiTokenRecord);
}
