// Secret references in a payload: `{"$secret": "NAME"}` anywhere in its JSON stands for the secret's value (a
// string), filled in by the worker just before the attempt runs. Pure functions, shared by console, worker and
// the browser's payload editor.

export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
export const SECRET_NAME_RULE = "upper-case letters, digits and _, starting with a letter, at most 64 characters (e.g. BANK_API_TOKEN)";

export interface SecretRef {
  $secret: string;
}

export interface FoundSecretRef {
  /** Dotted path in the payload ("headers.Authorization", "env.TOKEN"). */
  path: string;
  name: string;
}

/** An object whose only key is "$secret" with a string value. */
export function isSecretRef(v: unknown): v is SecretRef {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === "$secret" && typeof (v as SecretRef).$secret === "string";
}

/** Every reference in value, with its path. */
export function findSecretRefs(value: unknown, path: string[] = []): FoundSecretRef[] {
  if (isSecretRef(value)) return [{ path: path.join("."), name: value.$secret }];
  if (Array.isArray(value)) return value.flatMap((v, i) => findSecretRefs(v, [...path, String(i)]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => findSecretRefs(v, [...path, k]));
  return [];
}

/** Whether value holds a reference anywhere (findSecretRefs without the paths: a run's check before it starts). */
export function hasSecretRefs(value: unknown): boolean {
  if (isSecretRef(value)) return true;
  if (Array.isArray(value)) return value.some(hasSecretRefs);
  if (value && typeof value === "object") {
    for (const k in value) if (Object.hasOwn(value, k) && hasSecretRefs((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/** A copy of value with every reference replaced by replace(name, path); value itself is not changed. */
export function replaceSecretRefs(value: unknown, replace: (name: string, path: string) => unknown, path: string[] = []): unknown {
  if (isSecretRef(value)) return replace(value.$secret, path.join("."));
  if (Array.isArray(value)) return value.map((v, i) => replaceSecretRefs(v, replace, [...path, String(i)]));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceSecretRefs(v, replace, [...path, k])]));
  }
  return value;
}
