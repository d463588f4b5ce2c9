// Client-supplied headers are not credentials. X-Forwarded-For / -Host count only from the proxies
// VIGIL_TRUST_PROXY names (otherwise the client is the socket peer, which the console's own server
// writes into PEER_HEADER), and a signed-in browser's change must say where it came from (Origin, or
// failing that a Referer naming this console). Table-driven over every API route.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "./db";
import { callRoute } from "./call-route";
import { createTestSession, createTestToken } from "./auth";
import { discoverEndpoints, MUTATING, type Endpoint } from "./api-endpoints";
import { getPool } from "../core/db/pool";
import { markPeerHeaderWritten, PEER_HEADER } from "../core/http/peer-header";

const db = useTestDatabase("request_headers");

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
const HOST = "localhost:3000";
const ORIGIN_CODES = new Set(["cross_origin", "origin_required"]);

let endpoints: Endpoint[] = [];
let adminToken = "";

async function attemptIps(email: string): Promise<string[]> {
  const { rows } = await getPool().query(`SELECT ip FROM login_attempts WHERE email = $1 ORDER BY id`, [email]);
  return rows.map((r) => r.ip as string);
}

async function importLogin() {
  return (await import("../app/api/auth/login/route")).POST;
}

describe("forwarding headers and the origin of signed-in changes", () => {
  beforeAll(async () => {
    // As scripts/console-server.ts does before Next.js loads a route.
    markPeerHeaderWritten();
    endpoints = await discoverEndpoints();
    adminToken = await createTestToken(db.url, "admin");
  });
  afterAll(() => markPeerHeaderWritten(false));

  it("does not let a rotating X-Forwarded-For dodge the sign-in throttle", async () => {
    const login = await importLogin();
    const peer = "203.0.113.7";
    const statuses: number[] = [];
    // One account, a new forwarded address each time: the throttle counts the (account, socket peer) pair, so the
    // failures past the free ones (VIGIL_LOGIN_FREE_FAILURES, 5) are delayed whatever the header claims.
    for (let i = 1; i <= 6; i++) {
      const res = await callRoute(login, {
        method: "POST",
        path: "/api/auth/login",
        headers: { [PEER_HEADER]: peer, "x-forwarded-for": `198.51.100.${i}` },
        body: { email: "nobody@rotate.test", password: "wrong-password" },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses[5]).toBe(429);
    expect([...new Set(await attemptIps("nobody@rotate.test"))]).toEqual([peer]);
    // The audit trail records the same address, not the one the client wrote.
    const { rows } = await getPool().query(
      `SELECT DISTINCT ip FROM audit_events WHERE action = 'auth.login_failure' AND actor = 'nobody@rotate.test'`,
    );
    expect(rows).toEqual([{ ip: peer }]);
  });

  it("uses the forwarded address only from proxies VIGIL_TRUST_PROXY names", async () => {
    const cases: { trust: string; peer: string; xff: string; want: string }[] = [
      // Not configured: the socket peer, whatever the header says.
      { trust: "", peer: "10.0.0.5", xff: "198.51.100.20", want: "10.0.0.5" },
      // A trusted proxy: the address it appended; what the client prepended is not reached.
      { trust: "10.0.0.0/8", peer: "10.0.0.5", xff: "6.6.6.6, 198.51.100.21", want: "198.51.100.21" },
      // Two trusted proxies in a row are both skipped.
      { trust: "10.0.0.0/8,loopback", peer: "127.0.0.1", xff: "198.51.100.22, 10.1.2.3", want: "198.51.100.22" },
      // A peer that is not a listed proxy is the client itself.
      { trust: "10.0.0.0/8", peer: "192.0.2.9", xff: "198.51.100.23", want: "192.0.2.9" },
      // A hop count: one proxy in front.
      { trust: "1", peer: "192.0.2.10", xff: "6.6.6.6, 198.51.100.24", want: "198.51.100.24" },
    ];
    const saved = process.env.VIGIL_TRUST_PROXY;
    try {
      for (const [i, c] of cases.entries()) {
        vi.resetModules();
        process.env.VIGIL_TRUST_PROXY = c.trust;
        const login = await importLogin();
        const email = `trust-${i}@forwarded.test`;
        const res = await callRoute(login, {
          method: "POST",
          path: "/api/auth/login",
          headers: { [PEER_HEADER]: c.peer, "x-forwarded-for": c.xff },
          body: { email, password: "wrong-password" },
        });
        expect(res.status).toBe(401);
        expect(await attemptIps(email), `VIGIL_TRUST_PROXY=${c.trust} peer ${c.peer} X-Forwarded-For ${c.xff}`).toEqual([c.want]);
      }
    } finally {
      if (saved === undefined) delete process.env.VIGIL_TRUST_PROXY;
      else process.env.VIGIL_TRUST_PROXY = saved;
      vi.resetModules();
    }
  });

  it("does not let a spoofed X-Forwarded-Host pass the origin check, on any mutating route", async () => {
    const wrong: string[] = [];
    for (const e of endpoints.filter((x) => MUTATING.has(x.method))) {
      const res = await callRoute(e.handler, {
        method: e.method,
        path: e.path,
        params: e.params,
        token: adminToken,
        headers: { host: HOST, origin: "https://evil.example", "x-forwarded-host": "evil.example", [PEER_HEADER]: "203.0.113.50" },
        body: {},
      });
      if (res.status !== 403 || res.body?.error?.code !== "cross_origin") wrong.push(`${e.key} → ${res.status} ${res.body?.error?.code}`);
    }
    expect(wrong).toEqual([]);
  });

  it("believes X-Forwarded-Host from a trusted proxy", async () => {
    const saved = process.env.VIGIL_TRUST_PROXY;
    vi.resetModules();
    process.env.VIGIL_TRUST_PROXY = "loopback";
    try {
      const { POST } = await import("../app/api/schedules/preview/route");
      const call = (peer: string) =>
        callRoute(POST, {
          method: "POST",
          path: "/api/schedules/preview",
          token: adminToken,
          headers: {
            host: "10.0.0.2:3000",
            origin: "https://vigil.example.com",
            "x-forwarded-host": "vigil.example.com",
            [PEER_HEADER]: peer,
          },
          body: { trigger: { kind: "interval", everySeconds: 60 } },
        });
      expect((await call("127.0.0.1")).status).toBe(200);
      expect((await call("192.0.2.1")).status).toBe(403);
    } finally {
      if (saved === undefined) delete process.env.VIGIL_TRUST_PROXY;
      else process.env.VIGIL_TRUST_PROXY = saved;
      vi.resetModules();
    }
  });

  it("refuses every signed-in change without an Origin, accepts a matching Referer, and leaves tokens alone", async () => {
    const admin = await createTestSession(db.url, "admin");
    // Logout ends the session the other calls use: it goes last.
    const mutating = endpoints
      .filter((x) => MUTATING.has(x.method) && !PUBLIC.has(x.key))
      .sort((a, b) => Number(a.key === "POST /api/auth/logout") - Number(b.key === "POST /api/auth/logout"));
    expect(mutating.length).toBeGreaterThan(10);
    const { rows: before } = await getPool().query(`SELECT count(*)::int AS n FROM audit_events`);
    const refused: string[] = [];
    for (const e of mutating) {
      const base = { method: e.method, path: e.path, params: e.params, body: {} };
      const bare = await callRoute(e.handler, { ...base, cookie: admin.cookie, headers: { host: HOST } });
      if (bare.status !== 403 || bare.body?.error?.code !== "origin_required" || !bare.body.error.message)
        refused.push(`no Origin: ${e.key} → ${bare.status}`);
      const elsewhere = await callRoute(e.handler, {
        ...base,
        cookie: admin.cookie,
        headers: { host: HOST, referer: "https://evil.example/page" },
      });
      if (elsewhere.status !== 403 || elsewhere.body?.error?.code !== "cross_origin")
        refused.push(`foreign Referer: ${e.key} → ${elsewhere.status}`);
    }
    expect(refused).toEqual([]);
    // Nothing was done by the refused calls.
    const { rows: after } = await getPool().query(`SELECT count(*)::int AS n FROM audit_events`);
    expect(after[0].n).toBe(before[0].n);

    const accepted: string[] = [];
    for (const e of mutating) {
      const base = { method: e.method, path: e.path, params: e.params, body: {} };
      const viaToken = await callRoute(e.handler, { ...base, token: adminToken, headers: { host: HOST } });
      // (Logout refuses tokens for its own reason: they have no session to end.)
      if (ORIGIN_CODES.has(viaToken.body?.error?.code) || viaToken.status >= 500) accepted.push(`token: ${e.key} → ${viaToken.status}`);
      const withReferer = await callRoute(e.handler, {
        ...base,
        cookie: admin.cookie,
        headers: { host: HOST, referer: `http://${HOST}/admin` },
      });
      if ([401, 403].includes(withReferer.status) || withReferer.status >= 500) accepted.push(`Referer: ${e.key} → ${withReferer.status}`);
    }
    expect(accepted).toEqual([]);
  });
});
