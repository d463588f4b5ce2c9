// Fills a payload's secret references with their values. Only the worker calls this, in its main thread,
// just before an attempt's payload is handed to the attempt's thread; nothing resolved is ever stored.
// Each secret's access rule is decided again here, against the schedule as it is now (a rule narrowed or a
// schedule renamed since the save): a refused secret fails the run and no value is decrypted at all.
import type { Queryable } from "../db/pool";
import { requireSecretKeyring } from "../env";
import { decryptSecretValue, type EncryptedSecretRow } from "./secret-crypto";
import { findSecretRefs, replaceSecretRefs } from "./secret-refs";
import { mayUseSecret, readSecretAccess, secretRefusal, type ScheduleIdentity } from "./secret-access";

export interface ResolvedPayload {
  payload: unknown;
  /** Each secret the payload used, with its value: what redaction must take out of everything the attempt reports. */
  secrets: { name: string; value: string }[];
}

export class MissingSecretError extends Error {}
/** The run's schedule may not use a secret its payload refers to: permanent, a retry would be refused too. */
export class SecretNotAllowedError extends Error {}

/** The run being resolved: its schedule, and the handler its snapshot runs. */
export interface ResolvingRun {
  scheduleId: string;
  handler: string;
}

export async function resolvePayloadSecrets(db: Queryable, payload: unknown, run: ResolvingRun): Promise<ResolvedPayload> {
  const refs = findSecretRefs(payload);
  if (refs.length === 0) return { payload, secrets: [] };
  const names = [...new Set(refs.map((r) => r.name))];
  const { rows } = await db.query<EncryptedSecretRow & { access: unknown }>(
    `SELECT name, ciphertext, iv, auth_tag, key_id, access FROM secrets WHERE name = ANY($1::text[])`,
    [names],
  );
  const missing = names.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length > 0) {
    const where = refs.filter((r) => missing.includes(r.name)).map((r) => r.path || "payload");
    throw new MissingSecretError(
      `Secret ${missing.join(", ")} does not exist (referred to at payload ${where.join(", ")}): an admin sets it under Admin → Secrets`,
    );
  }
  const schedule = await readScheduleIdentity(db, run);
  const refused = rows.filter((r) => !mayUseSecret(readSecretAccess(r.access), schedule));
  if (refused.length > 0) {
    throw new SecretNotAllowedError(refused.map((r) => secretRefusal(r.name, readSecretAccess(r.access), schedule)).join(" "));
  }
  const keys = requireSecretKeyring();
  const values = new Map<string, string>(
    rows.map((r) => [
      r.name,
      decryptSecretValue(keys, r.name, { ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyId: r.key_id }),
    ]),
  );
  return {
    payload: replaceSecretRefs(payload, (name) => values.get(name)),
    secrets: [...values].map(([name, value]) => ({ name, value })),
  };
}

async function readScheduleIdentity(db: Queryable, run: ResolvingRun): Promise<ScheduleIdentity> {
  const { rows } = await db.query<{ name: string; tags: string[] }>(`SELECT name, tags FROM schedules WHERE id = $1`, [run.scheduleId]);
  // A run whose schedule row is gone has no name a rule can allow.
  return { name: rows[0]?.name ?? `(deleted schedule ${run.scheduleId})`, tags: rows[0]?.tags ?? [], handler: run.handler };
}
