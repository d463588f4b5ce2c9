import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "./global-setup";
import { sameOrigin } from "./same-origin";

test.describe("signing in", () => {
  // A fresh browser: none of the E2E admin's stored session.
  test.use({ storageState: { cookies: [], origins: [] } });

  test("an unauthenticated visit goes to the login page, and signing in returns to the page asked for", async ({ page }) => {
    await page.goto("/runs?state=failed");
    await expect(page).toHaveURL(/\/login\?next=%2Fruns%3Fstate%3Dfailed$/);
    await page.getByLabel("Email").fill(E2E_ADMIN.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("login-error")).toHaveText(/email or password is not right/);
    await page.getByLabel("Password").fill(E2E_ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/runs\?state=failed$/);
    await expect(page.getByTestId("user-menu-label")).toHaveText(E2E_ADMIN.email);
    await page.screenshot({ path: "artifacts/screenshots/signed-in.png" });
    await page.getByRole("button", { name: "Sign out" }).click();
    // The page's own polling may notice the ended session first and add ?next= — either is the login page.
    await expect(page).toHaveURL(/\/login(\?next=[^&]*)?$/);
    await expect(page.getByRole("heading", { name: "Sign in to Vigil" })).toBeVisible();
    await page.goto("/schedules");
    await expect(page).toHaveURL(/\/login\?next=%2Fschedules$/);
  });

  test("the API refuses callers without a session, and pages carry the security headers", async ({ page, request }) => {
    const api = await request.get("/api/workers");
    expect(api.status()).toBe(401);
    expect((await api.json()).error.code).toBe("unauthorized");
    const res = await page.goto("/login");
    const h = res!.headers();
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("same-origin");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["x-powered-by"]).toBeUndefined();
  });
});

test("an admin manages users and tokens on the admin page", async ({ page }) => {
  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  await expect(page.getByTestId(`user-row-${E2E_ADMIN.email}`)).toBeVisible();
  const form = page.getByRole("form", { name: "New user" });
  await form.getByLabel("Email").fill("e2e-viewer@vigil.test");
  await form.getByLabel("Initial password").fill("short");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByText("Use at least 12 characters.")).toBeVisible();
  await form.getByLabel("Initial password").fill("viewer-password-123");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId("user-row-e2e-viewer@vigil.test")).toBeVisible();

  const tokenForm = page.getByRole("form", { name: "New API token" });
  await tokenForm.getByLabel("Token name").fill("e2e-bot");
  await tokenForm.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("token-secret").locator("code").first().textContent())!;
  expect(secret).toMatch(/^vgl_/);
  await expect(page.getByTestId("token-row-e2e-bot")).toContainText(secret.slice(0, 12));
  await page.screenshot({ path: "artifacts/screenshots/admin.png", fullPage: true });
});

test("pause a schedule with a reason, find that action on the audit page, and export it", async ({ page }) => {
  const name = `e2e-audit-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name, handler: "demo.noop", trigger: { kind: "cron", cron: "*/5 * * * *", timezone: "Europe/Berlin" } },
  });
  expect(created.status(), await created.text()).toBe(200);
  const schedule = (await created.json()).schedule as { id: string };
  // A reason a spreadsheet would run as a formula, with markup: shown as text, exported defused.
  const reason = `=HYPERLINK("http://x") <b>vendor</b> maintenance ${name}`;

  await page.goto(`/schedules/${schedule.id}`);
  await page.getByTestId("pause-schedule").click();
  const dialog = page.getByTestId("pause-dialog");
  await dialog.getByLabel("Reason").fill(reason);
  await dialog.getByTestId("confirm-pause").click();
  await expect(page.getByTestId("schedule-state")).toHaveAttribute("data-state", "paused");

  // The schedule page's audit link is a deep link to this schedule's trail.
  await page.getByRole("link", { name: /Audit trail/ }).click();
  await expect(page).toHaveURL(new RegExp(`/audit\\?target=schedule(%3A|:)${schedule.id}$`));
  const row = page.getByTestId("audit-row").filter({ hasText: "schedule.pause" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(E2E_ADMIN.email);
  await expect(row).toContainText(reason); // rendered as text, not markup
  await expect(page.locator("[data-testid=audit-table] b")).toHaveCount(0);
  await row.getByRole("button", { name: "Details" }).click();
  await expect(page.getByTestId("audit-diff")).toBeVisible();

  // Text search from the filter form finds it too.
  await page.goto("/audit");
  await page.getByLabel("Search").fill(name);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/q=e2e-audit-/);
  await expect(page.getByTestId("audit-row").filter({ hasText: "schedule.pause" })).toHaveCount(1);

  await page.getByRole("button", { name: "Verify chain" }).click();
  await expect(page.getByTestId("verify-result")).toContainText("Intact");
  // The worker anchors the chain head outside the database (every second here); the page shows the last anchor
  // and checks the chain against it.
  await expect(async () => {
    await page.getByRole("button", { name: "Verify chain" }).click();
    await expect(page.getByTestId("audit-anchor")).toContainText("Last anchor (anchor file): seq", { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("verify-result")).toContainText("matching the last anchor");
  await page.screenshot({ path: "artifacts/screenshots/audit.png", fullPage: true });

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("audit-export").click()]);
  const csv = await (await download.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString("utf8"));
  const lines = csv.trimEnd().split("\r\n");
  expect(lines[0]).toMatch(/^id,at,actor_type,actor_id,actor,action,target_type,target_id,reason,/);
  const pauseLine = lines.find((l) => l.includes(",schedule.pause,"));
  expect(pauseLine).toBeDefined();
  expect(pauseLine).toContain(`,${E2E_ADMIN.email},schedule.pause,schedule,${schedule.id},`);
  // Formula defused with a leading apostrophe; quotes doubled inside a quoted cell.
  expect(pauseLine).toContain(`"'=HYPERLINK(""http://x"") <b>vendor</b> maintenance ${name}"`);
});
