// Bad input on the accounts and audit routes: malformed JSON, wrong types, unknown fields, oversized
// bodies, injection strings, ids that are not ids — a 4xx JSON error naming the field, nothing stored,
// and nothing from the input echoed back as markup.
import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { getPool } from "@/core/db/pool";
import * as login from "./login/route";
import * as users from "../users/route";
import * as user from "../users/[id]/route";
import * as tokens from "../tokens/route";
import * as token from "../tokens/[id]/route";
import * as audit from "../audit/route";
import * as exportCsv from "../audit/export.csv/route";

const db = useTestDatabase("accounts_bad_input");
let admin: string;
let existingUserId: string;

const XSS = "<script>alert(1)</script>";
const SQLI = "x'; DROP TABLE users; --";

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function send(
  handler: Handler,
  opts: { method: string; url?: string; raw?: string; body?: unknown; params?: Record<string, string>; auth?: boolean },
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.auth !== false) headers.authorization = `Bearer ${admin}`;
  const req = new NextRequest(new URL(opts.url ?? "/api/x", "http://localhost:3000"), {
    method: opts.method,
    headers,
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  return { status: res.status, text, json: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null };
}

async function stored(): Promise<number[]> {
  const { rows } = await getPool().query(
    `SELECT (SELECT count(*) FROM users)::int AS u, (SELECT count(*) FROM api_tokens)::int AS t,
            (SELECT count(*) FROM audit_events)::int AS a, (SELECT count(*) FROM sessions)::int AS s`,
  );
  return [rows[0].u, rows[0].t, rows[0].a, rows[0].s];
}

beforeAll(async () => {
  admin = await createTestToken(db.url, "admin");
  const made = await send(users.POST, {
    method: "POST",
    body: { email: "existing@example.com", password: "existing-password", role: "viewer" },
  });
  existingUserId = made.json.user.id;
});

const big = "x".repeat(300 * 1024);
const cases: [string, Handler, Parameters<typeof send>[1], number, string | null][] = [
  ["login: malformed JSON", login.POST, { method: "POST", raw: "{email:", auth: false }, 400, null],
  ["login: wrong types", login.POST, { method: "POST", body: { email: 42, password: ["a"] }, auth: false }, 422, "email"],
  ["login: unknown field", login.POST, { method: "POST", body: { email: "a@b.co", password: "pw", [XSS]: true }, auth: false }, 422, "_"],
  ["login: oversized body", login.POST, { method: "POST", body: { email: "a@b.co", password: big }, auth: false }, 413, null],
  ["users: malformed JSON", users.POST, { method: "POST", raw: '{"email": "a@b.co",' }, 400, null],
  [
    "users: wrong types",
    users.POST,
    { method: "POST", body: { email: "new@example.com", password: 123456789012, role: "viewer" } },
    422,
    "password",
  ],
  [
    "users: unknown role",
    users.POST,
    { method: "POST", body: { email: "new@example.com", password: "long-enough-pw", role: "root" } },
    422,
    "role",
  ],
  [
    "users: unknown field",
    users.POST,
    { method: "POST", body: { email: "new@example.com", password: "long-enough-pw", role: "viewer", isAdmin: true } },
    422,
    "_",
  ],
  [
    "users: injection in the email",
    users.POST,
    { method: "POST", body: { email: SQLI, password: "long-enough-pw", role: "viewer" } },
    422,
    "email",
  ],
  [
    "users: markup in the name",
    users.POST,
    { method: "POST", body: { email: "new@example.com", name: XSS, password: "long-enough-pw", role: "viewer" } },
    422,
    "name",
  ],
  [
    "users: SQL in the name",
    users.POST,
    { method: "POST", body: { email: "new@example.com", name: SQLI, password: "long-enough-pw", role: "viewer" } },
    422,
    "name",
  ],
  [
    "users: short password",
    users.POST,
    { method: "POST", body: { email: "new@example.com", password: "short", role: "viewer" } },
    422,
    "password",
  ],
  [
    "users: oversized body",
    users.POST,
    { method: "POST", body: { email: "new@example.com", password: "long-enough-pw", role: "viewer", name: big } },
    413,
    null,
  ],
  ["user: empty change", user.PATCH, { method: "PATCH", body: {}, params: { id: "" } }, 422, "_"],
  ["user: wrong type", user.PATCH, { method: "PATCH", body: { disabled: "yes" }, params: { id: "" } }, 422, "disabled"],
  ["user: unknown field", user.PATCH, { method: "PATCH", body: { email: "steal@example.com" }, params: { id: "" } }, 422, "_"],
  ["user: id that is not an id", user.PATCH, { method: "PATCH", body: { role: "admin" }, params: { id: SQLI } }, 404, null],
  [
    "user: id that does not exist",
    user.PATCH,
    { method: "PATCH", body: { role: "admin" }, params: { id: "00000000-0000-4000-8000-000000000000" } },
    404,
    null,
  ],
  ["tokens: markup in the name", tokens.POST, { method: "POST", body: { name: XSS, role: "viewer" } }, 422, "name"],
  ["tokens: missing name", tokens.POST, { method: "POST", body: { role: "viewer" } }, 422, "name"],
  ["tokens: unknown field", tokens.POST, { method: "POST", body: { name: "ok", role: "viewer", secret: "mine" } }, 422, "_"],
  ["token: id that is not an id", token.DELETE, { method: "DELETE", params: { id: `${XSS}` } }, 404, null],
  ["token: id that does not exist", token.DELETE, { method: "DELETE", params: { id: "00000000-0000-4000-8000-000000000000" } }, 404, null],
  ["audit: unknown parameter", audit.GET, { method: "GET", url: `/api/audit?${encodeURIComponent(XSS)}=1` }, 400, "_"],
  [
    "audit: cursor that is not an id",
    audit.GET,
    { method: "GET", url: `/api/audit?cursor=${encodeURIComponent("1 OR 1=1")}` },
    400,
    "cursor",
  ],
  ["audit: page too large", audit.GET, { method: "GET", url: "/api/audit?limit=100000" }, 400, "limit"],
  ["audit: search too long", audit.GET, { method: "GET", url: `/api/audit?q=${"a".repeat(201)}` }, 400, "q"],
  ["audit: time that is not a time", audit.GET, { method: "GET", url: `/api/audit?from=${encodeURIComponent(XSS)}` }, 400, "from"],
  ["audit: target that is not a target", audit.GET, { method: "GET", url: `/api/audit?target=${encodeURIComponent(SQLI)}` }, 400, "target"],
  ["export: unknown parameter", exportCsv.GET, { method: "GET", url: "/api/audit/export.csv?format=xlsx" }, 400, "_"],
];

describe("bad input → 4xx JSON naming the field, nothing stored, nothing echoed as markup", () => {
  for (const [what, handler, opts, status, field] of cases) {
    it(what, async () => {
      if (opts.params?.id === "") opts.params.id = existingUserId;
      const before = await stored();
      const res = await send(handler, opts);
      expect(res.status).toBe(status);
      expect(res.json.error.code).toEqual(expect.any(String));
      expect(res.json.error.message).toEqual(expect.any(String));
      if (field) expect(res.json.error.fields).toHaveProperty([field]);
      expect(res.text).not.toContain("<script>");
      expect(res.text).not.toContain("DROP TABLE");
      expect(await stored()).toEqual(before);
    });
  }

  it("searches for injection strings literally: 200, no match, no markup in the response", async () => {
    for (const q of [SQLI, XSS, "%' OR '1'='1", "\\\\%_"]) {
      const res = await send(audit.GET, { method: "GET", url: `/api/audit?q=${encodeURIComponent(q)}` });
      expect(res.status).toBe(200);
      expect(res.json.events).toEqual([]);
      expect(res.text).not.toContain("<script>");
    }
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM users`);
    expect(rows[0].n).toBe(1);
  });

  it("escapes markup that comes back in a successful response too", async () => {
    await getPool().query(
      `INSERT INTO audit_events (actor_type, actor, action, target_type, reason) VALUES ('system', 'test', 'test.markup', 'system', $1)`,
      [XSS],
    );
    const res = await send(audit.GET, { method: "GET", url: "/api/audit?action=test.markup" });
    expect(res.json.events[0].reason).toBe(XSS);
    expect(res.text).not.toContain("<script>");
    expect(res.text).toContain("\\u003cscript\\u003e");
  });
});
