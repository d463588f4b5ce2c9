// A team's admin (not the global admin) manages its team's secrets and alert channels in the console: the Admin link
// is there for them, the secrets form and the channel dialog offer a Team select over their admin teams, and the
// lists show each object's team. The Workers page shows each worker's pool. Real console, real worker, real Postgres.
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const PASSWORD = "team-owned-e2e-password-123";
const EMAIL = `e2e-team-admin-${suffix}@vigil.test`;
const names = { a: `own-a-${suffix}`, c: `own-c-${suffix}`, secret: `OWN_TOKEN_${suffix.toUpperCase()}`, channel: `own-hook-${suffix}` };

let teamAdmin: Page;

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const admin = await browser.newPage({ baseURL, storageState: test.info().project.use.storageState });
  const send = async (url: string, data: unknown, method: "post" | "put" = "post") => {
    const res = await admin.request[method](url, { headers: sameOrigin(), data });
    expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
    return res.json();
  };
  const a = (await send("/api/teams", { name: names.a })).team.id as string;
  const c = (await send("/api/teams", { name: names.c })).team.id as string;
  await send("/api/users", { email: EMAIL, password: PASSWORD, role: "viewer" });
  await send(`/api/teams/${a}/members`, { email: EMAIL, role: "admin" }, "put");
  await send(`/api/teams/${c}/members`, { email: EMAIL, role: "admin" }, "put");
  await admin.close();
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", { headers: sameOrigin(), data: { email: EMAIL, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  teamAdmin = await context.newPage();
});

test("a team admin creates a secret in one of its teams from the Admin page", async () => {
  await teamAdmin.goto("/schedules");
  // Findable: the account menu links the Admin page for a team's admin too.
  await expect(teamAdmin.getByTestId("user-menu").getByRole("link", { name: "Admin", includeHidden: true })).toHaveCount(1);
  await teamAdmin.goto("/admin");
  const form = teamAdmin.getByRole("form", { name: "New secret" });
  await form.getByLabel("Secret name").fill(names.secret);
  await form.getByLabel("Value").fill("team-owned-value-123");
  const team = form.getByTestId("secret-team").getByRole("combobox");
  await expect(team.locator("option")).toHaveText(["Choose a team…", names.a, names.c]);
  await team.selectOption(names.c);
  await teamAdmin.screenshot({ path: "artifacts/screenshots/team-owned-secret-form.png", fullPage: true });
  await form.getByRole("button", { name: "Save secret" }).click();
  await expect(teamAdmin.getByTestId(`secret-team-${names.secret}`)).toHaveText(names.c);
  await teamAdmin.screenshot({ path: "artifacts/screenshots/team-owned-secrets.png", fullPage: true });
});

test("a team admin creates an alert channel in one of its teams", async () => {
  await teamAdmin.goto("/alerts#channels");
  await teamAdmin.getByTestId("new-channel").click();
  const dialog = teamAdmin.getByTestId("channel-dialog");
  await dialog.getByTestId("channel-name").fill(names.channel);
  await dialog.getByTestId("channel-type").selectOption("webhook");
  await dialog.getByTestId("channel-secret").fill("https://hooks.example.com/team-owned");
  await dialog.getByTestId("channel-team").getByRole("combobox").selectOption(names.a);
  await dialog.screenshot({ path: "artifacts/screenshots/team-owned-channel-dialog.png" });
  await dialog.getByTestId("save-channel").click();
  const row = teamAdmin.locator(`[data-testid="alert-channel"][data-name="${names.channel}"]`);
  await expect(row.getByTestId("alert-channel-team")).toHaveText(names.a);
  await teamAdmin.getByTestId("alert-channels").screenshot({ path: "artifacts/screenshots/team-owned-channels.png" });
});

test("the Workers page shows each worker's pool", async ({ page }) => {
  await page.goto("/workers");
  await expect(page.getByTestId("worker-pool").first()).toHaveText("none");
  await page.screenshot({ path: "artifacts/screenshots/workers-pool.png", fullPage: true });
});
