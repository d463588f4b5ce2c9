// Payload values that look like credentials, written in plain text before secrets existed (an Authorization
// header, a field named token / password / secret / api key…): shown masked to viewers, and masked in every
// audit row from now on. Operators and admins still read them (they edit the schedule); a masked value sent
// back on save stands for "unchanged" (restoreMaskedValues). The cure is a secret reference instead.
import { isSecretRef } from "./secret-refs";

export const MASKED = "••••••••";

const CREDENTIAL_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|auth)$|token|passw|pwd|secret|api[-_ ]?key|credential|private[-_ ]?key|client[-_ ]?secret/i;

export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key);
}

/** A copy with every non-empty string (or string in an array/object) under a credential-like key masked. */
export function maskCredentials<T>(value: T): T {
  return walk(value, false) as T;
}

function walk(v: unknown, underCredential: boolean): unknown {
  if (isSecretRef(v)) return v; // a name, not a value
  if (typeof v === "string") return underCredential && v.length > 0 ? MASKED : v;
  if (Array.isArray(v)) return v.map((x) => walk(x, underCredential));
  if (v && typeof v === "object" && !(v instanceof Date)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, underCredential || isCredentialKey(k))]));
  }
  return v;
}

/** Dotted paths of plain credential-looking values (what should move to the secret store). */
export function plainCredentialPaths(value: unknown, path: string[] = [], under = false): string[] {
  if (isSecretRef(value)) return [];
  if (typeof value === "string") return under && value.length > 0 ? [path.join(".")] : [];
  if (Array.isArray(value)) return value.flatMap((x, i) => plainCredentialPaths(x, [...path, String(i)], under));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, x]) => plainCredentialPaths(x, [...path, k], under || isCredentialKey(k)));
  }
  return [];
}

/** next with every MASKED string replaced by the value at the same path in before (the editor kept it unchanged). */
export function restoreMaskedValues(next: unknown, before: unknown): unknown {
  if (next === MASKED) return typeof before === "string" ? before : next;
  if (Array.isArray(next)) return next.map((x, i) => restoreMaskedValues(x, Array.isArray(before) ? before[i] : undefined));
  if (next && typeof next === "object") {
    const b = before && typeof before === "object" && !Array.isArray(before) ? (before as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(next).map(([k, x]) => [k, restoreMaskedValues(x, b[k])]));
  }
  return next;
}

/** Masked for a viewer; as stored for anyone who may edit. */
export function payloadForRole<T>(role: "viewer" | "operator" | "admin", value: T): T {
  return role === "viewer" ? maskCredentials(value) : value;
}

/** What a save answers beside the schedule when its payload still holds plain credentials. */
export function plainCredentialWarnings(payload: unknown): string[] {
  return plainCredentialPaths(payload).map(
    (p) =>
      `payload.${p} looks like a credential in plain text: viewers see it masked, but it is stored as written. Store it as a secret (Admin → Secrets) and write {"$secret": "NAME"} instead.`,
  );
}
