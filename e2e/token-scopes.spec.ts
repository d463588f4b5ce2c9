// A token limited to a team and scopes, made on the Admin page: the tokens list says in words what it may do, and
// the API holds it to that (a route outside its scopes answers 403 scope_missing naming the scope).
import { expect, test } from "@playwright/test";

test("an admin makes a team-bound token with scopes; the list shows what it may do; the API holds it to its scopes", async ({
  page,
  baseURL,
}) => {
  const name = `e2e-scoped-${Date.now().toString(36)}`;
  await page.goto("/admin");
  const form = page.getByRole("form", { name: "New API token" });
  await form.getByLabel("Token name").fill(name);
  await form.getByLabel("Token role").selectOption("operator");
  await form.getByLabel("Team").fill("default");
  const scopes = form.getByRole("group", { name: "Token scopes" });
  await scopes.getByRole("checkbox", { name: /schedules:read/ }).check();
  await scopes.getByRole("checkbox", { name: /runs:trigger/ }).check();
  // A viewer token is offered no operator scope.
  await form.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("token-secret").locator("code").first().textContent())!;

  const row = page.getByTestId(`token-row-${name}`);
  const can = row.getByTestId("token-can");
  await expect(can).toContainText("team default only");
  await expect(can).toContainText("schedules:read: read schedules");
  await expect(can).toContainText("runs:trigger: trigger and backfill runs");
  await expect(row.getByTestId("token-last-used")).toHaveText("never");

  const call = (path: string) => fetch(`${baseURL}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  expect((await call("/api/schedules")).status).toBe(200);
  const refused = await call("/api/runs");
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ error: { code: "scope_missing", message: expect.stringContaining("runs:read") } });

  await page.reload();
  await expect(row.getByTestId("token-last-used")).not.toHaveText("never");
  await row.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/token-scopes-list.png", fullPage: false });
  await form.getByLabel("Token role").selectOption("viewer");
  await expect(scopes.getByRole("checkbox", { name: /runs:trigger/ })).toHaveCount(0);
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/token-scopes-form.png", fullPage: false });
});
