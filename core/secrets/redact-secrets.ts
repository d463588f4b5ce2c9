// Takes resolved secret values out of whatever an attempt reports (log messages and fields, its result, its
// error, a child's output) before it is stored, printed or cut to a length. A value is recognised in the forms
// it usually takes on its way out of a handler: as is; each line of a multi-line value; JSON-escaped (once or
// twice, and with non-ASCII as \uXXXX); percent-encoded (upper- or lower-case hex, space as %20 or +); and
// base64, standard and URL-safe, at any of the three byte alignments (so inside a longer base64 text, e.g. a
// Basic auth header, too). A value the handler transformed otherwise (hashed, reversed, split, re-encoded) is
// not recognised: text matching only finds what it is told to look for.

export interface Redactor {
  <T>(value: T): T;
  /** The longest text this redactor replaces: a stream holds back this much minus one before it cuts. */
  readonly longestForm: number;
}

export const redactionMark = (name: string) => `[secret ${name}]`;

/** A line of a multi-line value shorter than this (trimmed) is not matched on its own: it would be noise. */
export const MIN_REDACTED_LINE_LENGTH = 6;
/** A form shorter than this is not matched (base64 cores of very short values are a few characters). */
const MIN_FORM_LENGTH = 4;

const jsonEscape = (s: string) => JSON.stringify(s).slice(1, -1);
const asciiJsonEscape = (s: string) =>
  jsonEscape(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());

/**
 * The base64 text of value that does not depend on its neighbours, for each alignment of its first byte in a
 * 3-byte group: the characters mixing in bits of a preceding or following byte are left out.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out: string[] = [];
  for (const shift of [0, 1, 2]) {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    const start = [0, 2, 3][shift]!;
    const end = Math.floor(((shift + bytes.length) * 8) / 6);
    out.push(text.slice(start, end));
  }
  // Aligned at 0 and padded: the whole encoding of the value alone.
  out.push(bytes.toString("base64"));
  return out;
}

const toUrlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Every text that stands for s (without lines: see secretForms). */
function formsOf(s: string): string[] {
  const forms = new Set<string>([s, jsonEscape(s), jsonEscape(jsonEscape(s)), asciiJsonEscape(s)]);
  const pct = encodeURIComponent(s);
  for (const p of [pct, pct.replace(/%20/g, "+")]) {
    forms.add(p);
    forms.add(lowerHex(p));
  }
  for (const b of base64Cores(s)) {
    forms.add(b);
    forms.add(toUrlSafe(b));
  }
  return [...forms];
}

/** Every text redacted for a secret value: its forms, and its meaningful lines' forms when it has several lines. */
export function secretForms(value: string): string[] {
  const forms = new Set(formsOf(value));
  const lines = value.split(/\r?\n/);
  if (lines.length > 1) {
    for (const line of lines) {
      for (const l of new Set([line, line.trim()]))
        if (l.trim().length >= MIN_REDACTED_LINE_LENGTH) for (const f of formsOf(l)) forms.add(f);
    }
  }
  return [...forms].filter((f) => f.length >= MIN_FORM_LENGTH);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function createRedactor(secrets: { name: string; value: string }[]): Redactor {
  const byForm = new Map<string, string>();
  for (const s of secrets) {
    if (s.value.length === 0) continue;
    for (const f of secretForms(s.value)) if (!byForm.has(f)) byForm.set(f, s.name);
  }
  // Longest first: at each position the alternation takes the first form that matches, so a value that
  // contains another (or a line of itself) is replaced whole.
  const forms = [...byForm.keys()].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return Object.assign(<T>(v: T) => v, { longestForm: 0 });
  const pattern = new RegExp(forms.map(escapeRegExp).join("|"), "g");
  const redactString = (s: string) => (s.length === 0 ? s : s.replace(pattern, (m) => redactionMark(byForm.get(m)!)));
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactString(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactString(k), walk(x)]));
    return v;
  };
  return Object.assign(<T>(value: T) => walk(value) as T, { longestForm: forms[0]!.length });
}
