import type { Queryable } from "../db/pool";
import { TOKEN_COLUMNS, toApiTokenRecord, type ApiTokenRecord, type ApiTokenRow } from "./api-token-record";

export async function listApiTokens(db: Queryable): Promise<ApiTokenRecord[]> {
  const { rows } = await db.query<ApiTokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM api_tokens t ORDER BY t.revoked_at IS NOT NULL, t.created_at DESC`,
  );
  return rows.map(toApiTokenRecord);
}
