// The secret store as the console sees it: names and who changed them when, never a value. Setting a value
// encrypts it here (the console holds the key only to write); reading one back is possible only through
// resolve-secrets.ts, which only the worker calls. Every change is audited by name, without the value.
import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "../auth/roles";
import { inTransaction, type Queryable } from "../db/pool";
import { requireSecretKey } from "../env";
import { ConflictError, NotFoundError, ValidationError } from "../errors";
import { encryptSecretValue } from "./secret-crypto";
import { SECRET_NAME_PATTERN, SECRET_NAME_RULE } from "./secret-refs";
import { findTeam, resolveTeamForCreate, type TeamRef } from "../teams/resolve-team";
import { dropSharesOfDeletedObject } from "../teams/team-shares";
import { NO_ACCESS, describeSecretAccess, mayUseSecret, readSecretAccess, secretAccessSchema, type SecretAccess } from "./secret-access";

export const MIN_SECRET_LENGTH = 4;

export const secretNameSchema = z.string().regex(SECRET_NAME_PATTERN, { error: `A secret name uses ${SECRET_NAME_RULE}` });
export const secretValueSchema = z
  .string({ error: "value must be a string" })
  // Shorter values would be redacted from every log line they happen to occur in, as noise.
  .min(MIN_SECRET_LENGTH, { error: `value must be at least ${MIN_SECRET_LENGTH} characters` })
  .max(16 * 1024, { error: "value must be at most 16 KiB" });

export interface SecretListing {
  name: string;
  /** The team that owns it (its admins manage it; only its schedules may refer to it unless shared). */
  team: string;
  createdAt: Date;
  createdBy: string;
  updatedAt: Date;
  updatedBy: string;
  /** Fingerprint of the key its value is encrypted with (not the key): shows a rotation's progress. */
  keyId: string;
  /** Names of the live schedules whose payload refers to it. */
  usedBy: string[];
  /** Which schedules may refer to it (core/secrets/secret-access.ts), and the rule in one sentence. */
  access: SecretAccess;
  accessSummary: string;
  /** Live schedules that refer to it but its rule does not allow: their runs fail until the rule or they change. */
  refused: string[];
}

/** SQL: schedules whose payload has {"$secret": <$n>} anywhere. */
const refersTo = (param: string) =>
  `jsonb_path_exists(s.payload, 'strict $.**."$secret" ? (@ == $n)', jsonb_build_object('n', ${param}::text))`;

/** teamIds: only these teams' secrets (core/teams/team-access.ts visibleTeamIds); null: every team's. */
export async function listSecrets(db: Queryable, teamIds: readonly string[] | null = null): Promise<SecretListing[]> {
  const { rows } = await db.query<{
    name: string;
    team: string;
    key_id: string;
    created_at: Date;
    created_by: string;
    updated_at: Date;
    updated_by: string;
    access: unknown;
    used_by: { name: string; tags: string[]; handler: string }[];
  }>(
    `SELECT x.name, t.name AS team, x.key_id, x.created_at, x.created_by, x.updated_at, x.updated_by, x.access,
            coalesce((SELECT jsonb_agg(jsonb_build_object('name', s.name, 'tags', s.tags, 'handler', s.handler) ORDER BY s.name)
                        FROM schedules s WHERE s.deleted_at IS NULL AND ${refersTo("x.name")}), '[]') AS used_by
       FROM secrets x JOIN teams t ON t.id = x.team_id
      WHERE $1::uuid[] IS NULL OR x.team_id = ANY($1::uuid[]) ORDER BY x.name`,
    [teamIds ? [...teamIds] : null],
  );
  return rows.map((r) => {
    const access = readSecretAccess(r.access);
    return {
      name: r.name,
      team: r.team,
      keyId: r.key_id,
      createdAt: r.created_at,
      createdBy: r.created_by,
      updatedAt: r.updated_at,
      updatedBy: r.updated_by,
      usedBy: r.used_by.map((u) => u.name),
      access,
      accessSummary: describeSecretAccess(access),
      refused: r.used_by.filter((u) => !mayUseSecret(access, u)).map((u) => u.name),
    };
  });
}

/**
 * Where a secret is written: a new one goes into the team given (`teamId`, an alert channel's), else the team the
 * caller named (`team`, a name or id) or its only team where it is admin (core/teams/resolve-team.ts); an existing
 * one stays in its team — naming another is refused, a secret does not move between teams.
 */
export interface SecretWriteOptions {
  db?: Queryable;
  access?: SecretAccess;
  team?: string;
  teamId?: string;
}

async function teamForWrite(tx: Queryable, actor: Actor, existingTeamId: string | null, opts: SecretWriteOptions): Promise<TeamRef> {
  if (existingTeamId !== null) {
    const team = (await findTeam(tx, existingTeamId))!;
    const named = opts.team === undefined ? null : await findTeam(tx, opts.team);
    if (opts.team !== undefined && named?.id !== team.id) {
      const message = `This secret belongs to team ${team.name}; a secret does not move between teams.`;
      throw new ValidationError(message, { team: message }, "secret_team_fixed");
    }
    return team;
  }
  if (opts.teamId !== undefined) return (await findTeam(tx, opts.teamId))!;
  return resolveTeamForCreate(tx, actor, opts.team, "admin");
}

/**
 * Creates or replaces a secret's value. A new secret takes the rule given (no schedule may use it without one);
 * a replaced value keeps its rule unless one is given. Answers its listing (without the value).
 */
export async function setSecret(
  name: string,
  value: string,
  actor: Actor,
  opts: SecretWriteOptions = {},
): Promise<{ secret: SecretListing; replaced: boolean }> {
  if (!SECRET_NAME_PATTERN.test(name)) throw new ValidationError("Not a secret name.", { name: `A secret name uses ${SECRET_NAME_RULE}` });
  const v = secretValueSchema.safeParse(value);
  if (!v.success) throw new ValidationError("The value cannot be stored.", { value: v.error.issues[0]!.message });
  const enc = encryptSecretValue(requireSecretKey(), name, v.data);
  const run = async (tx: Queryable) => {
    const existing = await findSecretRow(tx, name, true);
    const before = existing?.access ?? null;
    const team = await teamForWrite(tx, actor, existing?.teamId ?? null, opts);
    const access = opts.access ?? before ?? NO_ACCESS;
    const { rows } = await tx.query<{ replaced: boolean }>(
      `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by, access, team_id)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)
       ON CONFLICT (name) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, auth_tag = excluded.auth_tag,
         key_id = excluded.key_id, updated_at = clock_timestamp(), updated_by = excluded.updated_by, access = excluded.access
       RETURNING (xmax <> 0) AS replaced`,
      [name, enc.ciphertext, enc.iv, enc.authTag, enc.keyId, actor.label, JSON.stringify(access), team.id],
    );
    const replaced = rows[0]!.replaced;
    await recordAudit(tx, {
      actor,
      action: replaced ? "secret.replace" : "secret.set",
      targetType: "secret",
      targetId: name,
      ...(before ? { before: { access: before, team: team.name } } : {}),
      after: {
        name,
        team: team.name,
        access,
        summary: `secret ${name} ${replaced ? "replaced" : "set"} by ${actor.label}`,
        value: "(never recorded)",
      },
    });
    const secret = (await listSecrets(tx)).find((s) => s.name === name)!;
    return { secret, replaced };
  };
  return inTransaction({ tx: opts.db }, run);
}

/** Changes which schedules may use a secret (admins only, at the route); audited with the rule before and after. */
export async function setSecretAccess(
  name: string,
  input: unknown,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<{ secret: SecretListing }> {
  const parsed = secretAccessSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ValidationError("The access rule is not valid.", { [["access", ...issue.path].join(".")]: issue.message });
  }
  const access = parsed.data;
  return inTransaction({ tx: opts.db }, async (tx) => {
    const row = await findSecretRow(tx, name, true);
    if (!row) throw new NotFoundError("Secret", name);
    const before = row.access;
    await tx.query(`UPDATE secrets SET access = $2, updated_at = clock_timestamp(), updated_by = $3 WHERE name = $1`, [
      name,
      JSON.stringify(access),
      actor.label,
    ]);
    await recordAudit(tx, {
      actor,
      action: "secret.access",
      targetType: "secret",
      targetId: name,
      before: { access: before, team: row.team },
      after: {
        access,
        team: row.team,
        summary: `secret ${name} may now be used by ${describeSecretAccess(access)} (set by ${actor.label})`,
      },
    });
    return { secret: (await listSecrets(tx)).find((s) => s.name === name)! };
  });
}

async function findSecretRow(
  db: Queryable,
  name: string,
  lock: boolean,
): Promise<{ access: SecretAccess; teamId: string; team: string } | null> {
  const { rows } = await db.query<{ access: unknown; team_id: string; team: string }>(
    `SELECT x.access, x.team_id, t.name AS team FROM secrets x JOIN teams t ON t.id = x.team_id WHERE x.name = $1${lock ? " FOR UPDATE OF x" : ""}`,
    [name],
  );
  return rows[0] ? { access: readSecretAccess(rows[0].access), teamId: rows[0].team_id, team: rows[0].team } : null;
}

/**
 * Deletes a secret no live schedule refers to (409 naming the schedules otherwise), and its shares with other teams
 * (each audited as an unshare): a secret created later under the same name starts unshared.
 */
export async function deleteSecret(name: string, actor: Actor, opts: { db?: Queryable } = {}): Promise<{ name: string; deleted: true }> {
  const run = async (tx: Queryable) => {
    const row = await findSecretRow(tx, name, true);
    if (!row) throw new NotFoundError("Secret", name);
    const { rows: users } = await tx.query<{ name: string }>(
      `SELECT s.name FROM schedules s WHERE s.deleted_at IS NULL AND ${refersTo("$1")} ORDER BY s.name`,
      [name],
    );
    if (users.length > 0) {
      throw new ConflictError(
        `Secret ${name} is used by ${users.map((u) => u.name).join(", ")}: change those payloads first, or their runs would fail.`,
        "secret_in_use",
      );
    }
    await tx.query(`DELETE FROM secrets WHERE name = $1`, [name]);
    await dropSharesOfDeletedObject(tx, { kind: "secret", key: name, name, teamId: row.teamId }, actor);
    await recordAudit(tx, {
      actor,
      action: "secret.delete",
      targetType: "secret",
      targetId: name,
      before: { name, team: row.team },
      after: { summary: `secret ${name} deleted by ${actor.label}` },
    });
    return { name, deleted: true as const };
  };
  return inTransaction({ tx: opts.db }, run);
}
