// Every API route, discovered from the file tree (not a hand-kept list): without credentials each
// method answers 401, and a viewer's token gets 403 from every mutating method. A route added
// without going through apiRoute's access check fails here. The only public routes are health
// (up/down for load balancers), login and single sign-on's two redirects; read-only POSTs are listed with the reason they are safe.
import { describe, expect, it, beforeAll } from "vitest";
import { useTestDatabase } from "./db";
import { callRoute } from "./call-route";
import { createTestToken } from "./auth";
import { getPool } from "../core/db/pool";
import { discoverEndpoints, MUTATING, type Endpoint } from "./api-endpoints";

const db = useTestDatabase("route_access");

// Single sign-on's two legs are public too: they only ever redirect (to the provider, or back to /login). A trigger
// URL's delivery is authenticated by the URL's own secret, not by a session or token (app/api/hooks/trigger-urls.db.test.ts).
// The API contract is public like a published reference: it holds shapes, no data.
const PUBLIC = new Set([
  "GET /api/health",
  "POST /api/auth/login",
  "GET /api/auth/oidc/login",
  "GET /api/auth/oidc/callback",
  "POST /api/hooks/[id]",
  "GET /api/openapi.json",
]);
// POSTs that change nothing: a viewer may call them. Checked below: they store nothing.
const READ_ONLY_POSTS: Record<string, string> = {
  "POST /api/schedules/preview": "computes the next fire times of a trigger that is not saved",
  "POST /api/audit/verify": "checks the audit chain against an anchor sent as published (a JSON line)",
};

// Mutations of the caller's own account that any signed-in user may make. A token (which has no
// session) is still refused or finds nothing; the row count check below shows nothing changed.
const OWN_ACCOUNT: Record<string, string> = {
  "DELETE /api/auth/sessions/[id]": "ends one of the caller's own sessions (another user's is not found)",
};

async function storedRowCount(): Promise<number> {
  const { rows } = await getPool().query(
    `SELECT sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', schemaname, relname), false, true, '')))[1]::text::bigint) AS total
       FROM pg_stat_user_tables WHERE schemaname = 'public'`,
  );
  return Number(rows[0].total);
}

let endpoints: Endpoint[] = [];
let viewer = "";

describe("access to every API route", () => {
  beforeAll(async () => {
    endpoints = await discoverEndpoints();
    viewer = await createTestToken(db.url, "viewer");
  });

  it("finds the real route list", () => {
    const keys = endpoints.map((e) => e.key);
    for (const k of ["GET /api/health", "POST /api/auth/login", "GET /api/audit", "PATCH /api/users/[id]", "DELETE /api/tokens/[id]"]) {
      expect(keys).toContain(k);
    }
    expect(endpoints.length).toBeGreaterThan(15);
  });

  it("answers 401 to every method without a session or token (except health and login)", async () => {
    const wrong: string[] = [];
    for (const e of endpoints) {
      if (PUBLIC.has(e.key)) continue;
      const res = await callRoute(e.handler, {
        method: e.method,
        path: e.path,
        params: e.params,
        body: MUTATING.has(e.method) ? {} : undefined,
      });
      if (res.status !== 401 || res.body?.error?.code !== "unauthorized") wrong.push(`${e.key} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers 401 to a token that does not exist", async () => {
    const wrong: string[] = [];
    for (const e of endpoints.filter((x) => !PUBLIC.has(x.key))) {
      const res = await callRoute(e.handler, { method: e.method, path: e.path, params: e.params, token: "vgl_not-a-real-token" });
      if (res.status !== 401) wrong.push(`${e.key} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers 403 to a viewer for every mutating method", async () => {
    const before = await storedRowCount();
    const wrong: string[] = [];
    for (const e of endpoints) {
      if (!MUTATING.has(e.method) || PUBLIC.has(e.key) || READ_ONLY_POSTS[e.key]) continue;
      const res = await callRoute(e.handler, { method: e.method, path: e.path, params: e.params, token: viewer, body: {} });
      if (OWN_ACCOUNT[e.key]) {
        if (![403, 404].includes(res.status)) wrong.push(`${e.key} → ${res.status}`);
      } else if (res.status !== 403 || res.body?.error?.code !== "forbidden") wrong.push(`${e.key} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
    expect(await storedRowCount()).toBe(before);
  });

  it("lets a viewer call the read-only POSTs, which store nothing", async () => {
    for (const key of Object.keys(READ_ONLY_POSTS)) {
      const e = endpoints.find((x) => x.key === key);
      expect(e, `${key} is listed as read-only but no longer exists`).toBeDefined();
      const before = await storedRowCount();
      const res = await callRoute(e!.handler, { method: "POST", path: e!.path, params: e!.params, token: viewer, body: {} });
      expect([401, 403]).not.toContain(res.status);
      expect(res.status).toBeLessThan(500);
      expect(await storedRowCount()).toBe(before);
    }
  });

  it("keeps /api/health public and saying no more than up or down", async () => {
    const e = endpoints.find((x) => x.key === "GET /api/health")!;
    const res = await callRoute(e.handler, { path: e.path });
    expect([200, 503]).toContain(res.status);
    expect(Object.keys(res.body).sort()).toEqual(["database", "live", "migrations", "ready", "status", "worker"]);
    for (const v of Object.values(res.body)) expect(["string", "boolean"]).toContain(typeof v);
  });

  it("refuses a mutation from another site's page even with valid credentials", async () => {
    const admin = await createTestToken(db.url, "admin");
    const e = endpoints.find((x) => x.key === "POST /api/users")!;
    const res = await callRoute(e.handler, {
      method: "POST",
      path: e.path,
      token: admin,
      headers: { origin: "https://evil.example", host: "localhost:3000" },
      body: { email: "x@example.com", password: "long-enough-password", role: "admin" },
    });
    expect(res.status).toBe(403);
    const { rows } = await getPool().query(`SELECT 1 FROM users WHERE email = 'x@example.com'`);
    expect(rows).toHaveLength(0);
  });
});
