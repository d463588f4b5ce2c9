// Sign-in protection against the real console server (scripts/console-server.ts) in a real browser: the sign-in
// form works with JavaScript off, by POST, and no URL the browser visits carries the email or password; a URL
// that does is never a sign-in; a path with malformed percent-encoding gets a 400, not a bare 500.
import pg from "pg";
import { expect, test, type BrowserContext } from "@playwright/test";
import { E2E_ADMIN } from "./global-setup";

/** Every URL the context requests (navigations, redirects followed, subresources), in order. */
function recordUrls(context: BrowserContext): { url: string; method: string }[] {
  const seen: { url: string; method: string }[] = [];
  context.on("request", (r) => seen.push({ url: r.url(), method: r.method() }));
  return seen;
}

const carriesCredential = (url: string) =>
  [E2E_ADMIN.email, E2E_ADMIN.password, "not-the-password"].some(
    (s) => url.includes(s) || url.includes(encodeURIComponent(s)) || url.includes(new URLSearchParams({ s }).toString().slice(2)),
  );

test.describe("sign-in without JavaScript", () => {
  test("signs in through the form by POST, shows a wrong password on the page, and no URL carries a credential", async ({
    browser,
    baseURL,
  }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false, storageState: { cookies: [], origins: [] } });
    const seen = recordUrls(context);
    const page = await context.newPage();
    try {
      await page.goto("/runs?state=failed");
      await expect(page).toHaveURL(/\/login\?next=%2Fruns%3Fstate%3Dfailed$/);
      await page.getByLabel("Email").fill(E2E_ADMIN.email);
      await page.getByLabel("Password").fill("not-the-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/login\?login_error=invalid&next=%2Fruns%3Fstate%3Dfailed$/);
      await expect(page.getByTestId("login-error")).toHaveText(/email or password is not right/);

      await page.getByLabel("Email").fill(E2E_ADMIN.email);
      await page.getByLabel("Password").fill(E2E_ADMIN.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/runs\?state=failed$/);
      expect((await context.cookies()).map((c) => c.name)).toContain("vigil_session");
      const me = await context.request.get("/api/auth/me");
      expect(me.status()).toBe(200);
      expect((await me.json()).actor.label).toBe(E2E_ADMIN.email);

      const posts = seen.filter((r) => r.method === "POST" && new URL(r.url).pathname === "/api/auth/login");
      expect(posts).toHaveLength(2);
      expect(seen.filter((r) => new URL(r.url).pathname === "/api/auth/login" && r.method !== "POST")).toEqual([]);
      expect(seen.length).toBeGreaterThan(3);
      expect(seen.filter((r) => carriesCredential(r.url)).map((r) => r.url)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test("a URL carrying credentials is never a sign-in: the API has no GET, and the page sends it on without them", async ({
    browser,
    baseURL,
  }) => {
    const query = new URLSearchParams({ email: E2E_ADMIN.email, password: E2E_ADMIN.password }).toString();
    const api = await fetch(`${baseURL}/api/auth/login?${query}`);
    expect(api.status).toBe(405);
    expect(api.headers.getSetCookie()).toEqual([]);

    const context = await browser.newContext({ baseURL, javaScriptEnabled: false, storageState: { cookies: [], origins: [] } });
    const page = await context.newPage();
    try {
      await page.goto(`/login?${query}`);
      await expect(page).toHaveURL(/\/login$/);
      expect((await context.cookies()).map((c) => c.name)).not.toContain("vigil_session");
    } finally {
      await context.close();
    }
  });
});

test.describe("a path with malformed percent-encoding", () => {
  for (const [path, kind] of [
    ["/api/runs/%ff", "json"],
    ["/api/schedules/%E0%A4%A", "json"],
    ["/api/runs/%ff/logs", "json"],
    ["/api/users/%zz/sessions", "json"],
    ["/runs/%ff", "html"],
    ["/schedules/%E0%A4%A", "html"],
  ] as const) {
    test(`${path} answers 400 ${kind}`, async ({ baseURL }) => {
      const res = await fetch(`${baseURL}${path}`);
      expect(res.status).toBe(400);
      if (kind === "json") expect(((await res.json()) as { error: { code: string } }).error.code).toBe("malformed_path");
      else {
        expect(res.headers.get("content-type")).toMatch(/^text\/html/);
        expect(await res.text()).toContain("Bad address");
      }
    });
  }
});

test.afterAll(async () => {
  // The throttle's record of this spec's wrong password would slow the next spec's sign-ins from this address.
  const db = new pg.Client({ connectionString: process.env.VIGIL_E2E_DATABASE_URL });
  await db.connect();
  await db.query(`DELETE FROM login_attempts WHERE NOT success`).finally(() => db.end());
});
