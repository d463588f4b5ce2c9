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
import { getEnv } from "@/core/env";
import { getLogger } from "@/core/log";
import { resolveClient } from "@/core/http/proxy-trust";
import { isPeerHeaderWritten, PEER_HEADER } from "@/core/http/peer-header";
import { readJsonBody, readQuery } from "./read-input";
import { findConsoleChangeFeed } from "@/core/console/console-change-feed";
import { answerOutsideContract, OUTSIDE_CONTRACT_MESSAGE } from "./contract/answer-outside-contract";
import { assertTokenScope, type RouteScope } from "@/core/auth/token-scopes";
import { assertObjectAccess, type TeamObjectKind } from "@/core/teams/object-team";
import type { TeamNeed } from "@/core/teams/team-access";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type Access = "public" | Role;

type ParamsSchema = z.ZodType<Record<string, string>>;

interface Spec<A extends Access, B extends z.ZodType, Q extends z.ZodType, P extends ParamsSchema> {
  /** Minimum role; "public" skips authentication (health, login). */
  access: A;
  /** The token scope this route needs (core/auth/token-scopes.ts): a token with scopes calls it only when it holds
   * this one. Every non-public route declares one (test/route-scopes.test.ts); a scoped token is refused a route
   * without. */
  scope?: RouteScope;
  body?: B;
  query?: Q;
  /** Path parameters, e.g. `{ id: z.uuid() }`: a malformed id answers 404 before any query runs. Typed from the schema. */
  params?: P;
  /** Query parameters that take several values: `?state=a&state=b` is read as `state=a,b`. Any other is refused when repeated. */
  listParams?: readonly string[];
  /** One line for the API contract (GET /api/openapi.json): what the route does. */
  summary?: string;
  /** The success answer's shape, for the API contract and the tests that check answers against it. */
  answer?: z.ZodType;
  /** The answer's media type when it is not JSON (text/csv, text/plain, text/event-stream); its `answer` is then z.string(). */
  answerMedia?: string;
  /** Error codes (error.code) this route answers besides the ones every route may (unauthorized, forbidden, not_found, validation_failed…). */
  errors?: readonly string[];
  /** Contract grouping; by default the first path segment after /api. */
  tag?: string;
  /**
   * The team object the route reads or changes, named by a path parameter (or a query parameter): the caller must hold
   * `need` (default: the route's access) in the object's team — no role there answers 404 as if it did not exist,
   * too low a role 403 (core/teams/team-access.ts).
   */
  object?: { kind: TeamObjectKind; param?: string; query?: string; need?: TeamNeed };
}

/** What the contract reads from a route's handler (GET /api/openapi.json, the answer checks in tests). */
export type RouteSpec = Spec<Access, z.ZodType, z.ZodType, ParamsSchema>;

export type ApiHandler = ((req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>) & {
  spec: RouteSpec;
};

export interface RouteContext<A extends Access, B, Q, P> {
  req: NextRequest;
  /** Who is calling: always someone on a route that needs a role; maybe nobody on a public one. */
  actor: A extends "public" ? Actor | null : Actor;
  body: B;
  query: Q;
  params: P;
}

type Handler<A extends Access, B, Q, P> = (ctx: RouteContext<A, B, Q, P>) => Promise<Response | unknown>;

// The peer: written by the console's server (scripts/console-server.ts) from the socket. Under a plain
// `next start` there is no such server and the best left is the last X-Forwarded-For entry (Next.js
// sets it from the socket only when the client sent none): `npm start` is the supported way.
function peerAddress(req: NextRequest): string | null {
  if (isPeerHeaderWritten()) return req.headers.get(PEER_HEADER);
  return (
    req.headers
      .get("x-forwarded-for")
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1) ?? null
  );
}

function clientView(req: NextRequest) {
  // (Host is always present on a real HTTP/1.1 request; a NextRequest built in a test may lack it.)
  const header = (name: string) => req.headers.get(name) ?? (name === "host" ? req.nextUrl.host : null);
  return resolveClient(getEnv().VIGIL_TRUST_PROXY, peerAddress(req), header);
}

/** The client's address (forwarding headers believed only from VIGIL_TRUST_PROXY) and user agent. */
export function clientInfo(req: NextRequest): { ip: string | null; userAgent: string | null } {
  return { ip: clientView(req).ip, userAgent: req.headers.get("user-agent")?.slice(0, 512) ?? null };
}

/** True when the browser reached us over https (directly, or through a trusted proxy that says so). */
export function isHttps(req: NextRequest): boolean {
  return req.nextUrl.protocol === "https:" || clientView(req).proto === "https";
}

/** This console's origin as the browser sees it (`https://vigil.example.com`), through trusted proxies only. */
export function publicOrigin(req: NextRequest): string {
  return `${isHttps(req) ? "https" : "http"}://${clientView(req).host ?? req.nextUrl.host}`;
}

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

// A browser sends Origin on every POST/PUT/PATCH/DELETE, same-site or not; it must name this host.
// A cookie-authenticated mutation without one is refused (unless its Referer is this host): nothing
// that holds the session cookie has a reason to leave both out. Bearer-token automation (curl, scripts)
// sends neither and carries no ambient credential, so only a present Origin is checked for it.
export function refuseCrossOrigin(req: NextRequest, viaCookie: boolean): void {
  if (!MUTATING.has(req.method)) return;
  const host = clientView(req).host;
  const origin = req.headers.get("origin");
  if (origin !== null) {
    if (hostOf(origin) !== host) throw new DomainError(403, "cross_origin", "This request came from another site and was refused.");
    return;
  }
  if (!viaCookie) return;
  const referer = req.headers.get("referer");
  if (referer === null) {
    throw new DomainError(
      403,
      "origin_required",
      "A signed-in change needs an Origin header naming this console (browsers send it; scripts should use an API token).",
    );
  }
  if (hostOf(referer) !== host) throw new DomainError(403, "cross_origin", "This request came from another site and was refused.");
}

/**
 * JSON with <, > and & written as \u escapes: the same value to any JSON parser, but input echoed
 * back (a name, an unknown key, a search term) can never appear as markup in the response bytes.
 */
export function jsonResponse(data: unknown, status = 200, headers: Record<string, string> = {}): NextResponse {
  return new NextResponse(jsonText(data), { status, headers: { "content-type": "application/json", ...headers } });
}

/** The body jsonResponse sends (for an answer kept and sent again, conditional-json.ts). */
export function jsonText(data: unknown): string {
  return JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export async function resolveActor(req: NextRequest): Promise<Actor | null> {
  const auth = req.headers.get("authorization");
  const bearer = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null;
  return authenticate(getPool(), { bearerToken: bearer, sessionToken: req.cookies.get(SESSION_COOKIE)?.value, ...clientInfo(req) });
}

let lastUnavailableWarning = -Infinity;

/**
 * One line per few seconds while the database is down, not one per request: every poll of every open console
 * fails then, and the line that matters is that it is down (npm start says when it is back).
 */
export function warnDatabaseUnavailable(err: unknown, context: Record<string, unknown> = {}): void {
  if (performance.now() - lastUnavailableWarning < 5000) return;
  lastUnavailableWarning = performance.now();
  getLogger().warn({ ...context, reason: (err as Error)?.message }, "database unavailable: API requests answer 503 database_unavailable");
}

/** VIGIL_CHECK_ANSWERS: logs a success answer its route's contract does not describe (paths and reasons, no values). */
async function logAnswerOutsideContract(spec: RouteSpec, req: NextRequest, result: unknown): Promise<void> {
  let status = 200;
  let body: unknown = result ?? { ok: true };
  if (result instanceof Response) {
    if (!result.headers.get("content-type")?.startsWith("application/json")) return;
    status = result.status;
    body = await result
      .clone()
      .json()
      .catch(() => null);
  } else body = JSON.parse(jsonText(body));
  const issues = answerOutsideContract(spec, status, body);
  if (issues) getLogger().error({ path: req.nextUrl.pathname, method: req.method, status, issues }, OUTSIDE_CONTRACT_MESSAGE);
}

export function apiRoute<
  A extends Access,
  B extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodType = z.ZodUnknown,
  P extends ParamsSchema = ParamsSchema,
>(spec: Spec<A, B, Q, P>, handler: Handler<A, z.infer<B>, z.infer<Q>, z.infer<P>>): ApiHandler {
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
        assertTokenScope(actor, spec.scope);
      }
      refuseCrossOrigin(req, actor?.type === "user");
      // Read (and shape-checked) even when the route takes no query: no route is handed a NUL or an ambiguous parameter.
      const raw = readQuery(req, spec.listParams);
      let params = (await ctx.params) ?? {};
      if (spec.params) {
        const parsed = spec.params.safeParse(params);
        if (!parsed.success) throw new DomainError(404, "not_found", "Nothing exists at this address: the id in the path is not valid.");
        params = parsed.data;
      }
      if (spec.object && actor) {
        const o = spec.object;
        const key = o.param ? params[o.param] : o.query ? raw[o.query] : undefined;
        const need = o.need ?? (spec.access === "public" ? "viewer" : spec.access);
        if (typeof key === "string" && key !== "") await assertObjectAccess(getPool(), actor, o.kind, key, need);
      }
      let query: unknown = undefined;
      if (spec.query) {
        const parsed = spec.query.safeParse(raw);
        if (!parsed.success)
          throw new BadRequestError("Some query parameters are not valid.", "invalid_query", fieldErrorsFromZod(parsed.error.issues));
        query = parsed.data;
      }
      let body: unknown = undefined;
      if (spec.body) {
        const parsed = spec.body.safeParse(await readJsonBody(req));
        if (!parsed.success) throw new ValidationError("Some fields are not valid.", fieldErrorsFromZod(parsed.error.issues));
        body = parsed.data;
      }
      const handlerStart = performance.now();
      const result = await handler({
        req,
        actor: actor as RouteContext<A, unknown, unknown, unknown>["actor"],
        body: body as z.infer<B>,
        query: query as z.infer<Q>,
        params: params as z.infer<P>,
      });
      // A write through this console: its change feed names it at once, and stops sharing answers until it has.
      if (MUTATING.has(req.method)) findConsoleChangeFeed()?.noteLocalWrite();
      if (getEnv().VIGIL_CHECK_ANSWERS) await logAnswerOutsideContract(spec, req, result);
      if (result instanceof Response) return result;
      const jsonStart = performance.now();
      const res = jsonResponse(result ?? { ok: true }, 200, { "cache-control": "no-store" });
      const end = performance.now();
      res.headers.set(
        "server-timing",
        `auth;dur=${authMs.toFixed(1)}, app;dur=${(jsonStart - handlerStart).toFixed(1)}, json;dur=${(end - jsonStart).toFixed(1)}`,
      );
      return res;
    } catch (err) {
      const { status, body } = toErrorResponse(err);
      if (status === 503) warnDatabaseUnavailable(err, { path: req.nextUrl.pathname, method: req.method });
      else if (status >= 500) getLogger().error({ err, path: req.nextUrl.pathname, method: req.method }, "API request failed");
      const headers: Record<string, string> = { "cache-control": "no-store" };
      if (status === 503) headers["retry-after"] = "2";
      if (err instanceof TooManyRequestsError) headers["retry-after"] = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
      return jsonResponse(body, status, headers);
    }
  };
  return Object.assign(wrapped, { spec: spec as RouteSpec });
}
