// The sign-in form posted without JavaScript: a form-encoded POST to /api/auth/login signs in with a 303 redirect
// (the session cookie set), a failure redirects back to the sign-in page with a code — never with the email or
// password in the Location — and the same-origin check holds as for a signed-in change.
import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { getPool } from "@/core/db/pool";
import { createUser } from "@/core/auth/create-user";
import { systemActor } from "@/core/auth/roles";
import * as loginRoute from "./login/route";

useTestDatabase("form_login");
const noParams = { params: Promise.resolve({}) };
const ORIGIN = "http://localhost:3000";

function formPost(fields: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) {
  return loginRoute.POST(
    new NextRequest(`${ORIGIN}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "192.0.2.31", ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
    noParams,
  );
}

beforeAll(async () => {
  await createUser({ email: "formuser@example.com", password: "form-password-1", role: "viewer" }, systemActor("test"));
});

describe("sign-in by a form POST (no JavaScript)", () => {
  it("signs in with a 303 to the page asked for, setting the session cookie, audited as a sign-in", async () => {
    const res = await formPost({ email: "formuser@example.com", password: "form-password-1", next: "/schedules?tag=x" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/schedules?tag=x");
    expect(res.headers.get("set-cookie")).toMatch(/^vigil_session=[\w-]{40,};.*HttpOnly/i);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'auth.login' AND actor = $1`, [
      "formuser@example.com",
    ]);
    expect(rows[0].n).toBe(1);
  });

  it("sends a failure back to the sign-in page with a code, never the email or password; an off-site next is ignored", async () => {
    const res = await formPost({ email: "formuser@example.com", password: "not-my-password", next: "https://evil.example/x" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe("/login?login_error=invalid");
    expect(res.headers.get("set-cookie")).toBeNull();
    const blank = await formPost({ email: "", password: "", next: "/runs" });
    expect(blank.headers.get("location")).toBe("/login?login_error=invalid_input&next=%2Fruns");
  });

  it("says how long to wait when the pair is slowed, in the redirect", async () => {
    await getPool().query(
      `INSERT INTO login_attempts (email, ip, success, at) SELECT 'formuser@example.com', '192.0.2.31', false, clock_timestamp() FROM generate_series(1, 9)`,
    );
    const res = await formPost({ email: "formuser@example.com", password: "form-password-1" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/login\?login_error=rate_limited&retry_after=\d+$/);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a form from another site, or one naming no origin at all, before reading it", async () => {
    const cross = await formPost({ email: "formuser@example.com", password: "form-password-1" }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect((await cross.json()).error.code).toBe("cross_origin");
    const bare = await formPost({ email: "formuser@example.com", password: "form-password-1" }, {});
    expect(bare.status).toBe(403);
    expect((await bare.json()).error.code).toBe("origin_required");
    expect(bare.headers.get("set-cookie")).toBeNull();
  });

  it("has no GET: credentials in a query string are never a sign-in", () => {
    expect((loginRoute as Record<string, unknown>).GET).toBeUndefined();
  });
});
