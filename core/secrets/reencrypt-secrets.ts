// Key rotation: a worker started with a new VIGIL_SECRET_KEY and the old one in VIGIL_SECRET_KEY_PREVIOUS
// re-encrypts every value still under an old key, in one transaction (rows another worker is re-encrypting
// at the same moment are skipped, not waited for). Values stay decryptable throughout: workers read with
// the previous keys until the rows are re-encrypted. Each re-encryption is audited by name.
import type pg from "pg";
import { recordAudit } from "../audit/record-audit";
import { systemActor } from "../auth/roles";
import { withTransaction } from "../db/pool";
import { decryptSecretValue, encryptSecretValue, secretKeyId, type EncryptedSecretRow } from "./secret-crypto";

export interface ReencryptResult {
  reencrypted: string[];
  /** Under a key this process does not have: they fail at run time until set again or their key is added. */
  unreadable: string[];
}

export async function reencryptSecrets(pool: pg.Pool, current: Buffer, previous: Buffer[], by = "worker"): Promise<ReencryptResult> {
  const currentId = secretKeyId(current);
  const known = new Set(previous.map(secretKeyId));
  return withTransaction(async (tx) => {
    const { rows } = await tx.query<EncryptedSecretRow>(
      `SELECT name, ciphertext, iv, auth_tag, key_id FROM secrets WHERE key_id <> $1 ORDER BY name FOR UPDATE SKIP LOCKED`,
      [currentId],
    );
    const out: ReencryptResult = { reencrypted: [], unreadable: [] };
    for (const r of rows) {
      if (!known.has(r.key_id)) {
        out.unreadable.push(r.name);
        continue;
      }
      const value = decryptSecretValue(previous, r.name, { ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyId: r.key_id });
      const enc = encryptSecretValue(current, r.name, value);
      await tx.query(`UPDATE secrets SET ciphertext = $2, iv = $3, auth_tag = $4, key_id = $5 WHERE name = $1`, [
        r.name,
        enc.ciphertext,
        enc.iv,
        enc.authTag,
        enc.keyId,
      ]);
      await recordAudit(tx, {
        actor: systemActor(by),
        action: "secret.reencrypt",
        targetType: "secret",
        targetId: r.name,
        before: { keyId: r.key_id },
        after: { keyId: enc.keyId, summary: `secret ${r.name} re-encrypted under the current key by ${by}` },
      });
      out.reencrypted.push(r.name);
    }
    return out;
  }, pool);
}
