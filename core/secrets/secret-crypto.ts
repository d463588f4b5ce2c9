// AES-256-GCM for secret values: a fresh random 96-bit IV per value, the 128-bit tag stored beside it, and the
// secret's name as additional authenticated data, so a ciphertext copied to another name does not decrypt.
import crypto from "node:crypto";

export interface EncryptedValue {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
  /** Fingerprint of the key (not the key): says which key a value needs when it does not decrypt. */
  keyId: string;
}

export function secretKeyId(key: Buffer): string {
  return crypto.createHash("sha256").update("vigil-secret-key:").update(key).digest("hex").slice(0, 16);
}

export function encryptSecretValue(key: Buffer, name: string, value: string): EncryptedValue {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(name, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: secretKeyId(key) };
}

/**
 * Decrypts with whichever of keys (the current one, then previous ones during a rotation) encrypted the value.
 * Throws naming the secret, never a value, when none did or the row was altered.
 */
/** A `secrets` row's encrypted columns as selected by resolvePayloadSecrets and reencryptSecrets. */
export interface EncryptedSecretRow {
  name: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
}

export function decryptSecretValue(keys: Buffer | Buffer[], name: string, v: EncryptedValue): string {
  const ring = Array.isArray(keys) ? keys : [keys];
  const key = ring.find((k) => secretKeyId(k) === v.keyId);
  if (!key) {
    throw new Error(
      `Secret ${name} was encrypted with another VIGIL_SECRET_KEY (key id ${v.keyId}; this process has ${ring.map(secretKeyId).join(", ")}): ` +
        "add that key to VIGIL_SECRET_KEY_PREVIOUS, or set the value again",
    );
  }
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, v.iv);
    decipher.setAAD(Buffer.from(name, "utf8"));
    decipher.setAuthTag(v.authTag);
    return Buffer.concat([decipher.update(v.ciphertext), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(
      `Secret ${name} could not be decrypted: its stored value fails authentication (altered in the database?); set it again`,
    );
  }
}
