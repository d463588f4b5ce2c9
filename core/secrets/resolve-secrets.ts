// Fills a payload's secret references with their values. Only the worker calls this, in its main thread,
// just before an attempt's payload is handed to the attempt's thread; nothing resolved is ever stored.
import type { Queryable } from "../db/pool";
import { requireSecretKeyring } from "../env";
import { decryptSecretValue, type EncryptedSecretRow } from "./secret-crypto";
import { findSecretRefs, replaceSecretRefs } from "./secret-refs";

export interface ResolvedPayload {
  payload: unknown;
  /** Each secret the payload used, with its value: what redaction must take out of everything the attempt reports. */
  secrets: { name: string; value: string }[];
}

export class MissingSecretError extends Error {}

export async function resolvePayloadSecrets(db: Queryable, payload: unknown): Promise<ResolvedPayload> {
  const refs = findSecretRefs(payload);
  if (refs.length === 0) return { payload, secrets: [] };
  const names = [...new Set(refs.map((r) => r.name))];
  const { rows } = await db.query<EncryptedSecretRow>(
    `SELECT name, ciphertext, iv, auth_tag, key_id FROM secrets WHERE name = ANY($1::text[])`,
    [names],
  );
  const missing = names.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length > 0) {
    const where = refs.filter((r) => missing.includes(r.name)).map((r) => r.path || "payload");
    throw new MissingSecretError(
      `Secret ${missing.join(", ")} does not exist (referred to at payload ${where.join(", ")}): an admin sets it under Admin → Secrets`,
    );
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
