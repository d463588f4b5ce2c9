// The sign-in throttle through the real login route: it slows the (account, address) pair that keeps failing and
// never locks anyone else out — not the owner from another address, not the other users behind one address, even
// past the per-address ceiling (lowered here to 10 so 30 sprayed failures cross it). A base delay of a minute keeps
// every delay longer than this slow machine takes between two attempts (each wrong password costs a scrypt).
process.env.VIGIL_LOGIN_ADDRESS_CEILING = "10";
process.env.VIGIL_LOGIN_DELAY_BASE_SECONDS = "60";

import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { useTestDatabase } from "@/test/db";
import { getPool } from "@/core/db/pool";
import { createUser } from "@/core/auth/create-user";
import { systemActor } from "@/core/auth/roles";
import { POST as loginPost } from "./login/route";

useTestDatabase("login_throttle");
const noParams = { params: Promise.resolve({}) };

async function signIn(email: string, password: string, address: string) {
  const res = await loginPost(
    new NextRequest("http://localhost:3000/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address, origin: "http://localhost:3000" },
      body: JSON.stringify({ email, password }),
    }),
    noParams,
  );
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json(), cookie: res.headers.get("set-cookie") };
}

beforeAll(async () => {
  const admin = systemActor("test");
  await createUser({ email: "owner@example.com", password: "owner-password", role: "operator" }, admin);
  await createUser({ email: "colleague@example.com", password: "colleague-password", role: "viewer" }, admin);
});

describe("sign-in throttle", () => {
  it("20 wrong passwords for an account from address A slow A's pair but do not block the correct password from address B", async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof signIn>> | undefined;
    for (let i = 0; i < 20; i++) {
      last = await signIn("owner@example.com", `wrong-${i}`, "203.0.113.1");
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(5);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(last!.status).toBe(429);
    expect(last!.body.error.code).toBe("rate_limited");
    expect(Number(last!.retryAfter)).toBeGreaterThanOrEqual(1);
    // The attacker's pair is slowed even for the right password…
    const sameAddress = await signIn("owner@example.com", "owner-password", "203.0.113.1");
    expect(sameAddress.status).toBe(429);
    expect(sameAddress.cookie).toBeNull();
    // …the owner from elsewhere is not.
    const owner = await signIn("owner@example.com", "owner-password", "198.51.100.7");
    expect(owner.status).toBe(200);
    expect(owner.cookie).toMatch(/^vigil_session=/);
    // Audited as before: failures and blocked attempts, under the email tried.
    const { rows } = await getPool().query<{ action: string; n: number }>(
      `SELECT action, count(*)::int AS n FROM audit_events WHERE actor = 'owner@example.com' GROUP BY action`,
    );
    const by = Object.fromEntries(rows.map((r) => [r.action, r.n]));
    expect(by["auth.login_blocked"]).toBe(statuses.filter((s) => s === 429).length + 1);
    expect(by["auth.login_failure"]).toBe(statuses.filter((s) => s === 401).length);
  }, 240_000);

  it("30 wrong passwords from one address for different accounts do not block another user's correct sign-in from it", async () => {
    for (let i = 0; i < 30; i++) {
      const r = await signIn(`sprayed-${i}@example.com`, "Winter2026!", "192.0.2.50");
      expect(r.status).toBe(401);
    }
    // Past the ceiling, an account this address has not failed on still signs in with its password…
    const colleague = await signIn("colleague@example.com", "colleague-password", "192.0.2.50");
    expect(colleague.status).toBe(200);
    // …while a second guess on an account it has already failed on waits (no free failures past the ceiling).
    const again = await signIn("sprayed-29@example.com", "Spring2026!", "192.0.2.50");
    expect(again.status).toBe(429);
    expect(Number(again.retryAfter)).toBeGreaterThan(60);
  }, 240_000);
});
