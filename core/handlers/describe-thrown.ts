// A readable one-line account of whatever a handler threw: an Error with its cause chain, or any other value (a
// plain object as JSON, a string as itself, undefined, a symbol…). Never throws itself, whatever the value does
// (a getter or toString that throws, a circular object), and stays bounded.

/** The longest description recorded (the run's error column is meant to be read, not to hold a dump). */
export const MAX_DESCRIPTION = 4000;
const MAX_CAUSES = 5;

function attempt<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** JSON with circular references and functions/symbols/bigints written out instead of failing. */
function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "symbol") return v.toString();
    if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
    if (v !== null && typeof v === "object") {
      if (seen.has(v)) return "[circular]";
      seen.add(v);
    }
    return v;
  });
}

function describeError(err: Error, depth: number): string {
  const name = attempt(() => String(err.name), "Error");
  const message = attempt(() => String(err.message), "");
  let text = message ? `${name === "Error" ? "" : `${name}: `}${message}` : name;
  const errors = attempt(() => (err instanceof AggregateError && Array.isArray(err.errors) ? err.errors : null), null);
  if (errors && errors.length > 0) text += ` [${errors.map((e) => describeValue(e, depth + 1)).join("; ")}]`;
  const cause = attempt(() => ("cause" in err ? err.cause : undefined), undefined);
  if (cause !== undefined) {
    text += depth >= MAX_CAUSES ? " (caused by: …)" : ` (caused by: ${describeValue(cause, depth + 1)})`;
  }
  return text;
}

function describeValue(value: unknown, depth: number): string {
  if (value instanceof Error) return describeError(value, depth);
  switch (typeof value) {
    case "string":
      return value === "" ? "an empty string was thrown" : value;
    case "undefined":
      return "undefined was thrown (no error value)";
    case "symbol":
      return `a symbol was thrown: ${value.toString()}`;
    case "function":
      return `a function was thrown: ${value.name || "anonymous"}`;
    case "bigint":
      return `a number was thrown: ${value}n`;
    case "number":
    case "boolean":
      return `a ${typeof value} was thrown: ${String(value)}`;
  }
  if (value === null) return "null was thrown (no error value)";
  const json = attempt(() => safeJson(value), undefined);
  if (json !== undefined && json !== "{}") return `${Array.isArray(value) ? "an array" : "an object"} was thrown: ${json}`;
  // JSON said nothing (a class instance without own fields, a Map): its own toString, if it has a useful one.
  const own = attempt(() => String(value), "");
  if (own && !/^\[object \w+\]$/.test(own)) return `an object was thrown: ${own}`;
  const kind = attempt(() => Object.prototype.toString.call(value).slice(8, -1), "Object");
  return `an object was thrown: ${kind}`;
}

/** redact: takes secret values out before the text is cut to its length, so a cut never splits one. */
export function describeThrown(value: unknown, redact: (text: string) => string = (t) => t): string {
  const text = redact(describeValue(value, 0));
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}
