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

export const MIN_SECRET_LENGTH = 4;

export const secretNameSchema = z.string().regex(SECRET_NAME_PATTERN, { error: `A secret name uses ${SECRET_NAME_RULE}` });
export const secretValueSchema = z
  .string({ error: "value must be a string" })
  // Shorter values would be redacted from every log line they happen to occur in, as noise.
  .min(MIN_SECRET_LENGTH, { error: `value must be at least ${MIN_SECRET_LENGTH} characters` })
  .max(16 * 1024, { error: "value must be at most 16 KiB" });

export interface SecretListing {
  name: string;
  createdAt: Date;
  createdBy: string;
  updatedAt: Date;
  updatedBy: string;
  /** Fingerprint of the key its value is encrypted with (not the key): shows a rotation's progress. */
  keyId: string;
  /** Names of the live schedules whose payload refers to it. */
  usedBy: string[];
}

/** SQL: schedules whose payload has {"$secret": <$n>} anywhere. */
const refersTo = (param: string) =>
  `jsonb_path_exists(s.payload, 'strict $.**."$secret" ? (@ == $n)', jsonb_build_object('n', ${param}::text))`;

export async function listSecrets(db: Queryable): Promise<SecretListing[]> {
  const { rows } = await db.query<{
    name: string;
    key_id: string;
    created_at: Date;
    created_by: string;
    updated_at: Date;
    updated_by: string;
    used_by: string[];
  }>(
    `SELECT x.name, x.key_id, x.created_at, x.created_by, x.updated_at, x.updated_by,
            coalesce((SELECT array_agg(s.name ORDER BY s.name) FROM schedules s WHERE s.deleted_at IS NULL AND ${refersTo("x.name")}), '{}') AS used_by
       FROM secrets x ORDER BY x.name`,
  );
  return rows.map((r) => ({
    name: r.name,
    keyId: r.key_id,
    createdAt: r.created_at,
    createdBy: r.created_by,
    updatedAt: r.updated_at,
    updatedBy: r.updated_by,
    usedBy: r.used_by,
  }));
}

/** Creates or replaces a secret's value. Answers its listing (without the value). */
export async function setSecret(
  name: string,
  value: string,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<{ secret: SecretListing; replaced: boolean }> {
  if (!SECRET_NAME_PATTERN.test(name)) throw new ValidationError("Not a secret name.", { name: `A secret name uses ${SECRET_NAME_RULE}` });
  const v = secretValueSchema.safeParse(value);
  if (!v.success) throw new ValidationError("The value cannot be stored.", { value: v.error.issues[0]!.message });
  const enc = encryptSecretValue(requireSecretKey(), name, v.data);
  const run = async (tx: Queryable) => {
    const { rows } = await tx.query<{ replaced: boolean }>(
      `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (name) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, auth_tag = excluded.auth_tag,
         key_id = excluded.key_id, updated_at = clock_timestamp(), updated_by = excluded.updated_by
       RETURNING (xmax <> 0) AS replaced`,
      [name, enc.ciphertext, enc.iv, enc.authTag, enc.keyId, actor.label],
    );
    const replaced = rows[0]!.replaced;
    await recordAudit(tx, {
      actor,
      action: replaced ? "secret.replace" : "secret.set",
      targetType: "secret",
      targetId: name,
      after: { name, summary: `secret ${name} ${replaced ? "replaced" : "set"} by ${actor.label}`, value: "(never recorded)" },
    });
    const secret = (await listSecrets(tx)).find((s) => s.name === name)!;
    return { secret, replaced };
  };
  return inTransaction({ tx: opts.db }, run);
}

/** Deletes a secret no live schedule refers to (409 naming the schedules otherwise). */
export async function deleteSecret(name: string, actor: Actor, opts: { db?: Queryable } = {}): Promise<{ name: string; deleted: true }> {
  const run = async (tx: Queryable) => {
    const { rows } = await tx.query<{ name: string }>(`SELECT name FROM secrets WHERE name = $1 FOR UPDATE`, [name]);
    if (!rows[0]) throw new NotFoundError("Secret", name);
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
    await recordAudit(tx, {
      actor,
      action: "secret.delete",
      targetType: "secret",
      targetId: name,
      before: { name },
      after: { summary: `secret ${name} deleted by ${actor.label}` },
    });
    return { name, deleted: true as const };
  };
  return inTransaction({ tx: opts.db }, run);
}
