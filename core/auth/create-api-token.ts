// Creates an API token for automation. The secret is returned once; the table keeps its SHA-256
// (a 256-bit random secret needs no slow hash) and a short prefix to recognise it by later.
import crypto from "node:crypto";
import type { Queryable } from "../db/pool";
import { recordAudit } from "../audit/record-audit";
import { getEnv } from "../env";
import { ValidationError } from "../errors";
import type { Actor } from "./roles";
import { sha256Hex } from "./authenticate";
import { createTokenSchema, type CreateTokenInput } from "./user-input";
import { TOKEN_COLUMNS, toApiTokenRecord, type ApiTokenRecord, type ApiTokenRow } from "./api-token-record";
import { inTransaction } from "../db/pool";
import { scopeAboveRole, TOKEN_SCOPES } from "./token-scopes";

/** The team named by id or name, for a token bound to it; a team that does not exist is a field error. */
async function findTeamIdOrThrow(db: Queryable, team: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM teams WHERE id::text = $1 OR name = $1`, [team]);
  if (!rows[0]) throw new ValidationError("Some fields are not valid.", { team: `There is no team ${team}.` });
  return rows[0].id;
}

export const TOKEN_PREFIX_LENGTH = 12;

export async function createApiToken(
  input: CreateTokenInput,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<{ token: ApiTokenRecord; secret: string }> {
  const t = createTokenSchema.parse(input);
  const env = getEnv();
  const days = t.expiresInDays ?? env.VIGIL_TOKEN_TTL_DAYS;
  if (days > env.VIGIL_TOKEN_MAX_TTL_DAYS) {
    throw new ValidationError("Some fields are not valid.", {
      expiresInDays: `A token lives at most ${env.VIGIL_TOKEN_MAX_TTL_DAYS} days (VIGIL_TOKEN_MAX_TTL_DAYS).`,
    });
  }
  const above = scopeAboveRole(t.role, t.scopes);
  if (above) {
    throw new ValidationError("Some fields are not valid.", {
      scopes: `The scope ${above} needs the ${TOKEN_SCOPES[above].role} role; this token is ${t.role}.`,
    });
  }
  const secret = `vgl_${crypto.randomBytes(32).toString("base64url")}`;
  return inTransaction({ tx: opts.db }, async (tx) => {
    const teamId = t.team === undefined ? null : await findTeamIdOrThrow(tx, t.team);
    const { rows } = await tx.query<ApiTokenRow>(
      `WITH t AS (
         INSERT INTO api_tokens (name, token_hash, prefix, role, created_by, expires_at, team_id, scopes)
         VALUES ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(days => $6), $7, $8) RETURNING *
       ) SELECT ${TOKEN_COLUMNS} FROM t`,
      [
        t.name,
        sha256Hex(secret),
        secret.slice(0, TOKEN_PREFIX_LENGTH),
        t.role,
        actor.type === "user" ? actor.id : null,
        days,
        teamId,
        t.scopes,
      ],
    );
    const token = toApiTokenRecord(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "token.create",
      targetType: "token",
      targetId: token.id,
      after: {
        name: token.name,
        role: token.role,
        prefix: token.prefix,
        expiresAt: token.expiresAt,
        team: token.team?.name ?? null,
        scopes: token.scopes,
      },
    });
    return { token, secret };
  });
}
