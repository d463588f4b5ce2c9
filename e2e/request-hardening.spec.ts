// Against the real console server (scripts/console-server.ts): the client address is the socket peer
// whatever X-Forwarded-For says, a signed-in change needs an Origin, and an oversized URL gets JSON.
import pg from "pg";
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

test("a rotating X-Forwarded-For does not get past the sign-in throttle of an (account, address) pair", async ({ baseURL }) => {
  const db = new pg.Client({ connectionString: process.env.VIGIL_E2E_DATABASE_URL });
  await db.connect();
  try {
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      const res = await fetch(`${baseURL}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i}` },
        body: JSON.stringify({ email: "rotate@e2e.test", password: "wrong-password" }),
      });
      statuses.push(res.status);
    }
    // All twelve count against one pair (the socket peer), so its doubling delays begin after the free ones.
    expect(statuses.slice(0, 5), statuses.join(",")).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.includes(429), statuses.join(",")).toBe(true);
    const { rows } = await db.query(`SELECT DISTINCT ip FROM login_attempts WHERE email = 'rotate@e2e.test'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].ip).not.toMatch(/^198\.51\.100\./);
  } finally {
    // The pair stays slowed for a while: clear it for the specs after this one.
    await db.query(`DELETE FROM login_attempts WHERE NOT success`);
    await db.end();
  }
});

test("a signed-in change without an Origin is refused with JSON; with one it goes through", async ({ page }) => {
  const bare = await page.request.post("/api/schedules/preview", { data: { trigger: { kind: "interval", everySeconds: 60 } } });
  expect(bare.status()).toBe(403);
  expect((await bare.json()).error.code).toBe("origin_required");
  const spoofed = await page.request.post("/api/schedules/preview", {
    headers: { origin: "https://evil.example", "x-forwarded-host": "evil.example" },
    data: { trigger: { kind: "interval", everySeconds: 60 } },
  });
  expect(spoofed.status()).toBe(403);
  const ok = await page.request.post("/api/schedules/preview", {
    headers: sameOrigin(),
    data: { trigger: { kind: "interval", everySeconds: 60 } },
  });
  expect(ok.status()).toBe(200);
});

test("a URL over the header limit gets a JSON 431, and a NUL in a query a JSON 400", async ({ baseURL, page }) => {
  const long = await fetch(`${baseURL}/api/schedules?q=${"x".repeat(20_000)}`);
  expect(long.status).toBe(431);
  expect((await long.json()).error.code).toBe("request_too_large");
  const nul = await page.request.get("/api/schedules?q=%00");
  expect(nul.status()).toBe(400);
  expect((await nul.json()).error.code).toBe("invalid_characters");
});
