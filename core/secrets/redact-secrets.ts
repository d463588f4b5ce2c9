// Takes resolved secret values out of whatever an attempt reports (log messages and fields, its result, its
// error) before it is stored or printed. Matches the exact value anywhere in a string, in keys too; a value
// the handler transformed (base64, hashed, split) is not recognised.

export type Redactor = <T>(value: T) => T;

export const redactionMark = (name: string) => `[secret ${name}]`;

export function createRedactor(secrets: { name: string; value: string }[]): Redactor {
  // Longest first: a value that contains another is replaced whole.
  const list = secrets.filter((s) => s.value.length > 0).sort((a, b) => b.value.length - a.value.length);
  if (list.length === 0) return (v) => v;
  const redactString = (s: string) =>
    list.reduce((acc, x) => (acc.includes(x.value) ? acc.split(x.value).join(redactionMark(x.name)) : acc), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactString(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactString(k), walk(x)]));
    return v;
  };
  return <T>(value: T) => walk(value) as T;
}
