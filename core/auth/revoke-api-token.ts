// Revokes an API token: authenticate() refuses it from the next request on.
import type { Queryable } from "../db/pool";
import { ConflictError, NotFoundError } from "../errors";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "./roles";
import { TOKEN_COLUMNS, toApiTokenRecord, type ApiTokenRecord, type ApiTokenRow } from "./api-token-record";
import { inTransaction } from "../db/pool";

export async function revokeApiToken(id: string, actor: Actor, opts: { db?: Queryable; reason?: string } = {}): Promise<ApiTokenRecord> {
  const { reason } = opts;
  return inTransaction({ tx: opts.db }, async (tx) => {
    const { rows: found } = await tx.query<{ revoked_at: Date | null }>(`SELECT revoked_at FROM api_tokens WHERE id = $1 FOR UPDATE`, [id]);
    if (!found[0]) throw new NotFoundError("API token", id);
    if (found[0].revoked_at) throw new ConflictError("This token is already revoked.", "already_revoked");
    const { rows } = await tx.query<ApiTokenRow>(
      `WITH t AS (UPDATE api_tokens SET revoked_at = clock_timestamp() WHERE id = $1 RETURNING *) SELECT ${TOKEN_COLUMNS} FROM t`,
      [id],
    );
    const token = toApiTokenRecord(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "token.revoke",
      targetType: "token",
      targetId: id,
      before: { revoked: false },
      after: { revoked: true, name: token.name, prefix: token.prefix },
      reason: reason ?? null,
    });
    return token;
  });
}
