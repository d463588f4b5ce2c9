// A trigger URL's secret: 32 random bytes, shown once. What is kept is its SHA-256 (a bearer secret is compared
// with that, in constant time) and, for an HMAC URL, the secret encrypted under the secret store's key
// (core/secrets/secret-crypto.ts) with the URL's id as additional data, because verifying a signature needs the
// secret itself. A copied ciphertext does not decrypt under another URL's id.
import crypto from "node:crypto";
import { requireSecretKey, requireSecretKeyring } from "../env";
import { decryptSecretValue, encryptSecretValue, type EncryptedValue } from "../secrets/secret-crypto";

export const TRIGGER_SECRET_PREFIX = "vgh_";

export type TriggerAuthMode = "hmac" | "bearer";

export function newTriggerUrlSecret(): string {
  return `${TRIGGER_SECRET_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
}

export function hashTriggerUrlSecret(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

/** The name the encryption binds the value to (its additional authenticated data). */
const aadName = (triggerUrlId: string) => `trigger-url:${triggerUrlId}`;

export interface StoredTriggerSecret {
  hash: string;
  encrypted: EncryptedValue | null;
}

/** What to store for a new secret: its hash, and for HMAC its encryption (needs VIGIL_SECRET_KEY). */
export function sealTriggerUrlSecret(triggerUrlId: string, secret: string, mode: TriggerAuthMode): StoredTriggerSecret {
  return {
    hash: hashTriggerUrlSecret(secret),
    encrypted: mode === "hmac" ? encryptSecretValue(requireSecretKey(), aadName(triggerUrlId), secret) : null,
  };
}

export function openTriggerUrlSecret(triggerUrlId: string, encrypted: EncryptedValue): string {
  return decryptSecretValue(requireSecretKeyring(), aadName(triggerUrlId), encrypted);
}

/** Constant-time equality of a presented bearer secret with the stored hash. */
export function bearerMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashTriggerUrlSecret(presented), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
