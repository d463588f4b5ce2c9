// The one wrapper every API route goes through: authenticate, authorize by role, refuse
// cross-origin mutations, parse and validate input with zod, and map errors to JSON.
import { NextResponse, type NextRequest } from "next/server";
import { z } from "zod";
import { getPool } from "@/core/db/pool";
import { authenticate, SESSION_COOKIE } from "@/core/auth/authenticate";
import { roleAllows, type Actor, type Role } from "@/core/auth/roles";
import {
  BadRequestError,
  DomainError,
  ForbiddenError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationError,
  fieldErrorsFromZod,
  toErrorResponse,
} from "@/core/errors";
import { getLogger } from "@/core/log";

const MAX_BODY_BYTES = 256 * 1024;
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type Access = "public" | Role;

interface Spec<B extends z.ZodType, Q extends z.ZodType> {
  /** Minimum role; "public" skips authentication (health, login). */
  access: Access;
  body?: B;
  query?: Q;
  /** Path parameters, e.g. `{ id: z.uuid() }`: a malformed id answers 404 before any query runs. */
  params?: z.ZodType<Record<string, string>>;
}

export interface RouteContext<B, Q> {
  req: NextRequest;
  actor: Actor | null;
  body: B;
  query: Q;
  params: Record<string, string>;
}

type Handler<B, Q> = (ctx: RouteContext<B, Q>) => Promise<Response | unknown>;

// The client address is the LAST X-Forwarded-For entry: the one the nearest proxy appended (or
// Next.js set from the socket). Earlier entries are whatever the client claimed, and trusting them
// would let anyone dodge the per-address login limit by inventing an address per request.
export function clientInfo(req: NextRequest): { ip: string | null; userAgent: string | null } {
  const fwd = req.headers.get("x-forwarded-for");
  const last = fwd?.split(",").map((s) => s.trim()).filter(Boolean).at(-1);
  const ip = (last ?? req.headers.get("x-real-ip") ?? "").slice(0, 64) || null;
  return { ip, userAgent: req.headers.get("user-agent")?.slice(0, 512) ?? null };
}

/** True when the browser reached us over https (directly or through a proxy that says so). */
export function isHttps(req: NextRequest): boolean {
  return req.nextUrl.protocol === "https:" || req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

function refuseCrossOrigin(req: NextRequest): void {
  if (!MUTATING.has(req.method)) return;
  const origin = req.headers.get("origin");
  // Automation (curl, scripts) sends no Origin; browsers always do on cross-site POSTs.
  if (!origin) return;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new ForbiddenError("This request came from another site and was refused.");
  }
  if (originHost !== host) throw new ForbiddenError("This request came from another site and was refused.");
}

async function readJson(req: NextRequest): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new BadRequestError(`The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, "body_too_large");
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new BadRequestError(`The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, "body_too_large");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError("The request body is not valid JSON.", "malformed_json");
  }
}

/**
 * JSON with <, > and & written as \u escapes: the same value to any JSON parser, but input echoed
 * back (a name, an unknown key, a search term) can never appear as markup in the response bytes.
 */
export function jsonResponse(data: unknown, status = 200, headers: Record<string, string> = {}): NextResponse {
  const text = JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return new NextResponse(text, { status, headers: { "content-type": "application/json", ...headers } });
}

export async function resolveActor(req: NextRequest): Promise<Actor | null> {
  const auth = req.headers.get("authorization");
  const bearer = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null;
  return authenticate(getPool(), { bearerToken: bearer, sessionToken: req.cookies.get(SESSION_COOKIE)?.value, ...clientInfo(req) });
}

export function apiRoute<B extends z.ZodType = z.ZodUnknown, Q extends z.ZodType = z.ZodUnknown>(
  spec: Spec<B, Q>,
  handler: Handler<z.infer<B>, z.infer<Q>>,
) {
  const wrapped = async (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => {
    // Server-Timing (auth, handler, serialisation) lets a browser's resource timing say where a slow answer went.
    const started = performance.now();
    let authMs = 0;
    try {
      let actor: Actor | null = null;
      if (spec.access !== "public") {
        actor = await resolveActor(req);
        authMs = performance.now() - started;
        if (!actor) throw new UnauthorizedError();
        if (!roleAllows(actor.role, spec.access)) throw new ForbiddenError(`This needs the ${spec.access} role; you are ${actor.role}.`);
      }
      refuseCrossOrigin(req);
      let params = (await ctx.params) ?? {};
      if (spec.params) {
        const parsed = spec.params.safeParse(params);
        if (!parsed.success) throw new DomainError(404, "not_found", "Nothing exists at this address: the id in the path is not valid.");
        params = parsed.data;
      }
      let body: unknown = undefined;
      if (spec.body) {
        const parsed = spec.body.safeParse(await readJson(req));
        if (!parsed.success) throw new ValidationError("Some fields are not valid.", fieldErrorsFromZod(parsed.error.issues));
        body = parsed.data;
      }
      let query: unknown = undefined;
      if (spec.query) {
        const raw = Object.fromEntries(req.nextUrl.searchParams.entries());
        const parsed = spec.query.safeParse(raw);
        if (!parsed.success) throw new BadRequestError("Some query parameters are not valid.", "invalid_query", fieldErrorsFromZod(parsed.error.issues));
        query = parsed.data;
      }
      const handlerStart = performance.now();
      const result = await handler({ req, actor, body: body as z.infer<B>, query: query as z.infer<Q>, params });
      if (result instanceof Response) return result;
      const jsonStart = performance.now();
      const res = jsonResponse(result ?? { ok: true }, 200, { "cache-control": "no-store" });
      const end = performance.now();
      res.headers.set("server-timing", `auth;dur=${authMs.toFixed(1)}, app;dur=${(jsonStart - handlerStart).toFixed(1)}, json;dur=${(end - jsonStart).toFixed(1)}`);
      return res;
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      if (status >= 500) getLogger().error({ err, path: req.nextUrl.pathname, method: req.method }, "API request failed");
      const headers: Record<string, string> = { "cache-control": "no-store" };
      if (err instanceof TooManyRequestsError) headers["retry-after"] = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
      return jsonResponse(body, status, headers);
    }
  };
  return wrapped;
}
