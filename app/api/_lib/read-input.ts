// Reading a request's body and query string into plain values for the route's zod schemas: the one
// place that refuses input no schema should have to think about (size, media type, NUL characters,
// nesting depth, a repeated parameter that can hold one value).
import type { NextRequest } from "next/server";
import { BadRequestError, DomainError, PayloadTooLargeError } from "@/core/errors";
import { bodyLimitFor, payloadTooLargeMessage } from "@/core/http/body-limits";
import { readBoundedBytes, readBoundedText } from "@/core/http/read-bounded-text";
import { describeInputProblem, findInputProblem } from "@/core/http/input-shape";

function refuseBadShape(value: unknown, where: "body" | "query"): void {
  const problem = findInputProblem(value);
  if (!problem) return;
  const d = describeInputProblem(problem, where);
  throw new BadRequestError(d.message, d.code, { [problem.path]: d.field });
}

/**
 * The body as text, counted while it is read: a chunked body (no Content-Length) over the limit is cancelled at
 * the first chunk past it instead of being buffered whole. (The console's server already counts before Next.js
 * sees the request; this holds wherever a route runs without it.)
 */
async function readBodyText(req: NextRequest, limit: number): Promise<string> {
  if (Number(req.headers.get("content-length") ?? 0) > limit) throw new PayloadTooLargeError(payloadTooLargeMessage(limit));
  if (!req.body) return "";
  const text = await readBoundedText(req.body, limit);
  if (text === null) throw new PayloadTooLargeError(payloadTooLargeMessage(limit));
  return text;
}

/** The body's bytes exactly as sent, within the route's limit (a signed delivery is verified over them). */
export async function readRawBody(req: NextRequest): Promise<Buffer> {
  const limit = bodyLimitFor(req.nextUrl.pathname);
  if (Number(req.headers.get("content-length") ?? 0) > limit) throw new PayloadTooLargeError(payloadTooLargeMessage(limit));
  if (!req.body) return Buffer.alloc(0);
  const bytes = await readBoundedBytes(req.body, limit);
  if (bytes === null) throw new PayloadTooLargeError(payloadTooLargeMessage(limit));
  return bytes;
}

export async function readJsonBody(req: NextRequest): Promise<unknown> {
  const text = await readBodyText(req, bodyLimitFor(req.nextUrl.pathname));
  if (text.trim() === "") return {};
  // JSON only, and said so: a form or text/plain body is what a cross-site page can send without asking.
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new DomainError(
      415,
      "unsupported_media_type",
      `Send the body as JSON with the header Content-Type: application/json (this request said ${type ? `"${type}"` : "nothing"}).`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError("The request body is not valid JSON.", "malformed_json");
  }
  refuseBadShape(parsed, "body");
  return parsed;
}

/**
 * The query string as { name: value }. A parameter given twice is refused (URLSearchParams would
 * silently keep one), except the ones the route lists as taking several values: those are joined
 * with commas, the same as `state=a,b`.
 */
export function readQuery(req: NextRequest, listParams: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [k, v] of req.nextUrl.searchParams) {
    if (k in out) {
      if (!listParams.includes(k)) repeated.add(k);
      out[k] = `${out[k]},${v}`;
    } else out[k] = v;
  }
  refuseBadShape(out, "query");
  if (repeated.size > 0) {
    const names = [...repeated];
    throw new BadRequestError(
      `Give ${names.map((n) => `"${n}"`).join(", ")} once: ${names.length > 1 ? "these take" : "it takes"} a single value.`,
      "repeated_parameter",
      Object.fromEntries(names.map((n) => [n, "given more than once; it takes a single value"])),
    );
  }
  return out;
}
