// Bad input gets a 4xx JSON error a person can act on (a code and a message), never a 500, on every
// API route (discovered from the file tree): NUL characters (PostgreSQL cannot store them), bodies
// nested 10,000 deep (stack overflow in JSON.stringify / zod), JSON sent as text/plain, a parameter
// given twice, over-long strings. The checks live in one place (app/api/_lib/read-input.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { callRoute } from "./call-route";
import { createTestToken } from "./auth";
import { discoverEndpoints, MUTATING, type Endpoint } from "./api-endpoints";

const db = useTestDatabase("bad_input_every_route");

// Mutating routes that read no body (a body sent to them is ignored, not parsed).
const NO_BODY = new Set([
  "POST /api/auth/logout",
  "DELETE /api/auth/sessions/[id]",
  "DELETE /api/schedules/[id]",
  "DELETE /api/calendars/[id]",
  "DELETE /api/secrets/[name]",
  "DELETE /api/tokens/[id]",
  "DELETE /api/users/[id]/sessions",
  "DELETE /api/schedules/[id]/silences/[silenceId]",
  "DELETE /api/alert-channels/[id]",
  "POST /api/alert-channels/[id]/test",
  "DELETE /api/schedules/[id]/hooks/[hookId]",
  "POST /api/schedules/[id]/hooks/[hookId]/rotate",
  "DELETE /api/teams/[id]/shares/[shareId]",
]);
// Routes that read a form body on purpose (the sign-in form without JavaScript): a form without an Origin naming
// this console is refused by the same-origin check instead of the media type.
const FORM_BODY = new Set(["POST /api/auth/login"]);
// Routes addressed by an id that is itself the credential (a trigger URL): a made-up id answers 404 before any body
// is read, whatever the body; their body checks (NUL, depth, media type) are in app/api/hooks/trigger-urls.db.test.ts.
const BODY_AFTER_ADDRESS = new Set(["POST /api/hooks/[id]"]);
const LONG = "x".repeat(10_000);

let endpoints: Endpoint[] = [];
let admin = "";

type Res = Awaited<ReturnType<typeof callRoute>>;
/** "" when the answer is an actionable 4xx JSON error (with the expected code, if given), else what is wrong. */
function problem(e: Endpoint, res: Res, code?: string): string {
  const err = res.body?.error;
  if (
    res.status < 400 ||
    res.status >= 500 ||
    typeof err?.code !== "string" ||
    typeof err?.message !== "string" ||
    err.message.length < 10
  ) {
    return `${e.key} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 160)}`;
  }
  if (code && err.code !== code) return `${e.key} → ${res.status} ${err.code} (wanted ${code})`;
  return "";
}

function deep(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

async function call(e: Endpoint, opts: Partial<Parameters<typeof callRoute>[1]> & { query?: string }): Promise<Res> {
  return callRoute(e.handler, { method: e.method, path: `${e.path}${opts.query ?? ""}`, params: e.params, token: admin, ...opts });
}

describe("bad input on every API route", () => {
  beforeAll(async () => {
    endpoints = await discoverEndpoints();
    admin = await createTestToken(db.url, "admin");
    for (const key of NO_BODY)
      expect(
        endpoints.map((x) => x.key),
        `${key} is listed as taking no body but no longer exists`,
      ).toContain(key);
  });

  it("refuses a NUL character in the query string with 400 invalid_characters", async () => {
    const wrong: string[] = [];
    for (const e of endpoints) {
      for (const query of ["?q=%00", "?q=abc%00def", "?cursor=%00&limit=5"]) {
        const p = problem(e, await call(e, { query, body: MUTATING.has(e.method) ? {} : undefined }), "invalid_characters");
        if (p) wrong.push(`${query}: ${p}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a query parameter given twice, except one that takes a list", async () => {
    const wrong: string[] = [];
    for (const e of endpoints) {
      const res = await call(e, { query: "?limit=1&limit=2", body: MUTATING.has(e.method) ? {} : undefined });
      const p = problem(e, res, "repeated_parameter");
      if (p) wrong.push(p);
      else if (!res.body.error.fields?.limit) wrong.push(`${e.key}: the error does not name "limit"`);
    }
    expect(wrong).toEqual([]);
    const runs = endpoints.find((x) => x.key === "GET /api/runs")!;
    const listed = await call(runs, { query: "?state=failed&state=missed" });
    expect(listed.status).toBe(200);
    const bad = await call(runs, { query: "?state=failed&state=nonsense" });
    expect(problem(runs, bad, "invalid_query")).toBe("");
  });

  it("refuses NUL characters, 10,000-deep nesting and text/plain bodies on every route that reads a body", async () => {
    const wrong: string[] = [];
    for (const e of endpoints.filter((x) => MUTATING.has(x.method))) {
      const takesBody = !NO_BODY.has(e.key);
      const cases: { what: string; rawBody: string; type: string; code: string }[] = [
        {
          what: "NUL in a description",
          rawBody: JSON.stringify({ description: "a\u0000b", reason: "r\u0000" }),
          type: "application/json",
          code: "invalid_characters",
        },
        { what: "NUL in a key", rawBody: JSON.stringify({ "a\u0000": 1 }), type: "application/json", code: "invalid_characters" },
        { what: "10,000 deep", rawBody: deep(10_000), type: "application/json", code: "too_deep" },
        { what: "JSON as text/plain", rawBody: JSON.stringify({ reason: "x" }), type: "text/plain", code: "unsupported_media_type" },
        {
          what: "JSON as a form",
          rawBody: JSON.stringify({ reason: "x" }),
          type: "application/x-www-form-urlencoded",
          code: "unsupported_media_type",
        },
      ];
      for (const c of cases) {
        const res = await call(e, { rawBody: c.rawBody, headers: { "content-type": c.type } });
        // A route that reads no body ignores it; it must still not fail with a 500.
        if (!takesBody || BODY_AFTER_ADDRESS.has(e.key)) {
          if (res.status >= 500) wrong.push(`${c.what}: ${e.key} → ${res.status}`);
          continue;
        }
        const code = FORM_BODY.has(e.key) && c.type === "application/x-www-form-urlencoded" ? "origin_required" : c.code;
        const p = problem(e, res, code);
        if (p) wrong.push(`${c.what}: ${p}`);
        if (code === "unsupported_media_type" && res.status !== 415) wrong.push(`${c.what}: ${e.key} → ${res.status}, not 415`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers over-long strings with a 4xx naming the field, never a 500", async () => {
    const wrong: string[] = [];
    const body = {
      name: LONG,
      description: LONG,
      reason: LONG,
      note: LONG,
      email: LONG,
      password: LONG,
      handler: LONG,
      trigger: { kind: "cron", cron: LONG, timezone: LONG },
    };
    for (const e of endpoints) {
      const res = MUTATING.has(e.method)
        ? await call(e, { body })
        : await call(e, { query: `?q=${LONG}&actor=${LONG}&cursor=${LONG}&from=${LONG}` });
      if (res.status >= 500 || (res.status >= 400 && problem(e, res))) wrong.push(`${e.key} → ${res.status}`);
      if (MUTATING.has(e.method) && !NO_BODY.has(e.key) && res.status < 400) wrong.push(`${e.key} accepted 10,000-character strings`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a 10,000-character cron expression with a message saying the limit", async () => {
    for (const key of ["POST /api/schedules", "POST /api/schedules/preview"]) {
      const e = endpoints.find((x) => x.key === key)!;
      const trigger = { kind: "cron", cron: `${"1,".repeat(4_999)}1 * * * *`, timezone: "UTC" };
      const started = performance.now();
      const res = await call(e, {
        body: key === "POST /api/schedules" ? { name: "long-cron", handler: "demo.noop", trigger } : { trigger },
      });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.fields["trigger.cron"]).toMatch(/at most 200 characters/);
    }
  });

  it("accepts a NUL-free search and a description without control characters (the checks do not over-reach)", async () => {
    const list = endpoints.find((x) => x.key === "GET /api/schedules")!;
    expect((await call(list, { query: "?q=nightly%20run" })).status).toBe(200);
    const audit = endpoints.find((x) => x.key === "GET /api/audit")!;
    expect((await call(audit, { query: "?q=schedule" })).status).toBe(200);
    const create = endpoints.find((x) => x.key === "POST /api/schedules")!;
    const res = await call(create, {
      body: {
        name: "ok-input",
        description: "Tab\tand newline\nare fine",
        handler: "demo.noop",
        trigger: { kind: "interval", everySeconds: 60 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
