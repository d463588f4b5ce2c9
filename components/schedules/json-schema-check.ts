// A small, deliberately partial JSON Schema check for the payload editor: is it JSON, is it an object, are
// required fields present, do values have the declared type or enum, are there unknown keys. The server's zod
// schema is the authority; this only catches typos before the round trip.

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface PayloadProblem {
  path: string;
  message: string;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(declared: string, actual: string): boolean {
  return declared === actual || (declared === "number" && actual === "integer");
}

function check(value: unknown, schema: JsonSchema, path: string, out: PayloadProblem[]): void {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const ok = alternatives.some((alt) => {
      const sub: PayloadProblem[] = [];
      check(value, alt, path, sub);
      return sub.length === 0;
    });
    if (!ok) out.push({ path, message: `${path || "payload"} does not match any allowed shape` });
    return;
  }
  const actual = typeOf(value);
  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(t, actual))) {
      out.push({ path, message: `${path || "payload"} must be ${types.join(" or ")}, not ${actual}` });
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    out.push({ path, message: `${path} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}` });
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ path, message: `${path} must be ≥ ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ path, message: `${path} must be ≤ ${schema.maximum}` });
  }
  if (actual === "object") {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in obj) && (schema.properties?.[key]?.default === undefined)) {
        out.push({ path: join(path, key), message: `${join(path, key)} is required` });
      }
    }
    for (const [key, v] of Object.entries(obj)) {
      const sub = schema.properties?.[key];
      if (sub) check(v, sub, join(path, key), out);
      else if (schema.additionalProperties === false) out.push({ path: join(path, key), message: `${join(path, key)} is not a field of this handler` });
    }
  }
  if (actual === "array" && schema.items) {
    (value as unknown[]).forEach((v, i) => check(v, schema.items!, `${path}[${i}]`, out));
  }
}

const join = (a: string, b: string) => (a ? `${a}.${b}` : b);

/** Problems with `text` as a payload for `schema`; an empty list means it looks right. */
export function checkPayload(text: string, schema: JsonSchema | undefined): PayloadProblem[] {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch (err) {
    return [{ path: "", message: `Not valid JSON: ${(err as Error).message}` }];
  }
  if (typeOf(value) !== "object") return [{ path: "", message: "The payload must be a JSON object, e.g. {}" }];
  if (!schema) return [];
  const out: PayloadProblem[] = [];
  check(value, schema, "", out);
  return out;
}
