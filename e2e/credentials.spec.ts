// The Admin page shows what each credential is doing: when a token was last used and when it expires,
// the signed-in user's own sessions (ending one), and an admin signing another user out everywhere.
import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "./global-setup";
import { sameOrigin } from "./same-origin";

/** Signs in through the API (a second browser, as far as the server can tell); returns its cookie. */
async function signInElsewhere(baseURL: string, email: string, password: string, userAgent: string): Promise<string> {
  const res = await fetch(`${baseURL}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith("vigil_session="))!
    .split(";")[0]!;
}

test("the Admin page shows token use and expiry, and lists and ends sessions", async ({ page, baseURL }) => {
  const suffix = Date.now().toString(36);
  await page.goto("/admin");

  // A token made on the page, then used once by "automation".
  const tokenForm = page.getByRole("form", { name: "New API token" });
  await tokenForm.getByLabel("Token name").fill(`e2e-used-${suffix}`);
  await tokenForm.getByLabel("Expires in (days)").fill("30");
  await tokenForm.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("token-secret").locator("code").first().textContent())!;
  const row = page.getByTestId(`token-row-e2e-used-${suffix}`);
  await expect(row.getByTestId("token-last-used")).toHaveText("never");
  await expect(row.getByTestId("token-expires")).not.toBeEmpty();
  expect((await fetch(`${baseURL}/api/workers`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
  await page.reload();
  await expect(row.getByTestId("token-last-used")).not.toHaveText("never");

  // A second sign-in of the same admin shows up in "Your sessions"; ending it signs that browser out.
  const elsewhere = await signInElsewhere(baseURL!, E2E_ADMIN.email, E2E_ADMIN.password, `Other Browser ${suffix}`);
  await page.reload();
  const sessions = page.getByTestId("session-row");
  await expect(sessions.filter({ hasText: "this browser" })).toHaveCount(1);
  const other = sessions.filter({ hasText: `Other Browser ${suffix}` });
  await expect(other).toHaveCount(1);
  await page.screenshot({ path: "artifacts/screenshots/admin-credentials.png", fullPage: true });
  await other.getByRole("button", { name: "Revoke" }).click();
  await expect(other).toHaveCount(0);
  expect((await fetch(`${baseURL}/api/auth/me`, { headers: { cookie: elsewhere } })).status).toBe(401);

  // An admin signs another user out everywhere.
  const email = `e2e-sessions-${suffix}@vigil.test`;
  const made = await page.request.post("/api/users", {
    headers: sameOrigin(),
    data: { email, password: "sessions-password-123", role: "viewer" },
  });
  expect(made.status(), await made.text()).toBe(200);
  const theirs = await signInElsewhere(baseURL!, email, "sessions-password-123", "Their Browser");
  await page.reload();
  const userRow = page.getByTestId(`user-row-${email}`);
  await expect(userRow.getByTestId("user-sessions")).toHaveText("1");
  page.once("dialog", (d) => void d.accept());
  await userRow.getByRole("button", { name: "End sessions" }).click();
  await expect(userRow.getByTestId("user-sessions")).toHaveText("0");
  expect((await fetch(`${baseURL}/api/auth/me`, { headers: { cookie: theirs } })).status).toBe(401);
});
