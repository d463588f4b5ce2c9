// The console as a viewer and as an operator, not only as the admin: a viewer walks every page and finds no
// control the API would refuse with 403; an operator finds the operator controls and none of the admin ones.
// Users are made through the real API by the E2E admin and sign in through the real login API.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Browser, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };
const PASSWORD = "roles-console-password-123";

/** Every control that changes something, by its test id; each answers 403 to a viewer. */
const OPERATOR_CONTROLS = [
  "new-schedule",
  "maintenance-button",
  "edit-schedule",
  "pause-schedule",
  "resume-schedule",
  "trigger-now",
  "backfill-schedule",
  "delete-schedule",
  "cancel-run",
  "rerun-run",
  "run-again-new",
  "bulk-actions",
  "bulk-cancel",
  "bulk-rerun",
  "acknowledge-alert",
  "silence-alerts",
  "end-silence",
];

interface Fixture {
  schedule: { id: string; name: string };
  hollowRunId: string;
  hangingRunId: string;
}
let fx: Fixture;

async function signedInPage(browser: Browser, baseURL: string, role: "viewer" | "operator"): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const email = `e2e-${role}-${suffix}@vigil.test`;
  // The context's request shares its cookie jar: the session cookie it receives signs the browser in.
  const res = await context.request.post("/api/auth/login", { headers: sameOrigin(), data: { email, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  return context.newPage();
}

async function expectNone(page: Page, ids: string[]) {
  for (const id of ids) await expect(page.getByTestId(id), `${id} must not be offered`).toHaveCount(0);
}

/** A page signed in as the E2E admin (browser.newPage does not take the config's storage state by itself). */
async function adminPage(browser: Browser, baseURL: string): Promise<Page> {
  return browser.newPage({ baseURL, storageState: test.info().project.use.storageState });
}

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const admin = await adminPage(browser, baseURL!);
  for (const role of ["viewer", "operator"] as const) {
    const made = await admin.request.post("/api/users", {
      headers: sameOrigin(),
      data: { email: `e2e-${role}-${suffix}@vigil.test`, password: PASSWORD, role },
    });
    expect(made.status(), await made.text()).toBe(200);
  }
  // A schedule whose run ends hollow (re-runnable, and it opens an alert to acknowledge) ...
  const created = await admin.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name: `e2e-roles-${suffix}`, handler: "demo.sleep", payload: { ms: 10, records: 0 }, trigger: YEARLY, expectRecordsMin: 1 },
  });
  expect(created.status(), await created.text()).toBe(200);
  const schedule = (await created.json()).schedule as Fixture["schedule"];
  const trig = await admin.request.post(`/api/schedules/${schedule.id}/trigger`, { headers: sameOrigin(), data: { reason: "e2e roles" } });
  const hollowRunId = (await trig.json()).runId as string;
  await expect
    .poll(async () => (await (await admin.request.get(`/api/runs/${hollowRunId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("hollow");
  await expect
    .poll(
      async () =>
        (await (await admin.request.get(`/api/alerts?scheduleId=${schedule.id}`)).json()).alerts.filter(
          (a: { acknowledgedAt: string | null }) => !a.acknowledgedAt,
        ).length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  // ... and a run that keeps running (cancellable).
  const hang = await admin.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name: `e2e-roles-hang-${suffix}`, handler: "demo.hang", trigger: YEARLY, timeoutSeconds: 600, graceSeconds: 1 },
  });
  expect(hang.status(), await hang.text()).toBe(200);
  const hangId = (await hang.json()).schedule.id as string;
  const hangTrig = await admin.request.post(`/api/schedules/${hangId}/trigger`, { headers: sameOrigin(), data: { reason: "e2e roles" } });
  const hangingRunId = (await hangTrig.json()).runId as string;
  await expect
    .poll(async () => (await (await admin.request.get(`/api/runs/${hangingRunId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("running");
  fx = { schedule, hollowRunId, hangingRunId };
  await admin.close();
});

test.afterAll(async ({ browser, baseURL }) => {
  if (!fx) return;
  const admin = await adminPage(browser, baseURL!);
  await admin.request.post(`/api/runs/${fx.hangingRunId}/cancel`, { headers: sameOrigin(), data: { reason: "e2e roles cleanup" } });
  await admin.close();
});

test("a viewer walks the console and is offered no control the API would refuse", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const page = await signedInPage(browser, baseURL!, "viewer");

  await page.goto(`/schedules?q=${fx.schedule.name}`);
  await expect(page.locator('[data-testid="schedule-row"]', { hasText: fx.schedule.name })).toBeVisible();
  await expect(page.getByTestId("user-menu")).toContainText("viewer");
  await expectNone(page, OPERATOR_CONTROLS);
  await expect(page.getByTestId("user-menu").getByRole("link", { name: "Admin" })).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/viewer-schedules.png", fullPage: true });

  await page.goto(`/schedules/${fx.schedule.id}`);
  await expect(page.getByTestId("schedule-alerts").getByTestId("alert-row").first()).toBeVisible();
  await expectNone(page, OPERATOR_CONTROLS);
  await expect(page.getByRole("toolbar", { name: "Schedule actions" })).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/viewer-schedule.png", fullPage: true });

  await page.goto("/runs");
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${fx.hangingRunId}"]`)).toBeVisible();
  await expectNone(page, OPERATOR_CONTROLS);
  await page.screenshot({ path: "artifacts/screenshots/viewer-runs.png", fullPage: true });

  for (const runId of [fx.hollowRunId, fx.hangingRunId]) {
    await page.goto(`/runs/${runId}`);
    await expect(page.getByTestId("run-trace")).toBeVisible();
    await expectNone(page, OPERATOR_CONTROLS);
  }
  await page.screenshot({ path: "artifacts/screenshots/viewer-run.png", fullPage: true });

  await page.goto("/alerts");
  await expect(page.getByTestId("alert-row").first()).toBeVisible();
  await expectNone(page, OPERATOR_CONTROLS);
  await page.screenshot({ path: "artifacts/screenshots/viewer-alerts.png", fullPage: true });

  await page.goto("/admin");
  await expect(page.getByText("Only admins manage accounts, tokens and secrets")).toBeVisible();
  await expect(page.getByRole("form", { name: "New secret" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "New API token" })).toHaveCount(0);
  await expect(page.getByLabel("Initial password")).toHaveCount(0);

  // Typing the address of a form a viewer cannot save explains why instead of failing on save.
  // An existing schedule's edit page names the role in the schedule's team (the Users page's role is the default team's).
  for (const [url, why] of [
    ["/schedules/new", "You need the operator role to create schedules"],
    [`/schedules/${fx.schedule.id}/edit`, "You are a viewer in team default; editing needs operator."],
  ] as const) {
    await page.goto(url);
    await expect(page.getByTestId("needs-role")).toContainText(why);
    await expect(page.locator("form")).toHaveCount(0);
  }
  await page.screenshot({ path: "artifacts/screenshots/viewer-edit-refused.png", fullPage: true });
  await page.context().close();
});

test("an operator sees the operator controls and none of the admin ones", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const page = await signedInPage(browser, baseURL!, "operator");

  await page.goto("/schedules");
  await expect(page.getByTestId("new-schedule")).toBeVisible();
  await expect(page.getByTestId("user-menu").getByRole("link", { name: "Admin" })).toHaveCount(0);

  await page.goto(`/schedules/${fx.schedule.id}`);
  for (const id of ["edit-schedule", "pause-schedule", "trigger-now", "backfill-schedule", "delete-schedule"])
    await expect(page.getByTestId(id)).toBeVisible();
  await expect(page.getByTestId("schedule-alerts").getByTestId("acknowledge-alert").first()).toBeVisible();

  // Silencing an alert kind for a while, and ending it early.
  await page.getByTestId("silence-alerts").click();
  const dialog = page.getByTestId("silence-dialog");
  await dialog.getByLabel("Alert kind").selectOption("hollow");
  await dialog.getByLabel("For").selectOption("240");
  await dialog.getByLabel("Reason").fill("known: demo schedule, e2e");
  await page.getByTestId("confirm-silence").click();
  const silenced = page.locator('[data-testid="alert-silence"][data-kind="hollow"]');
  await expect(silenced).toContainText("Hollow success silenced until");
  await page.screenshot({ path: "artifacts/screenshots/operator-schedule.png", fullPage: true });
  await silenced.getByTestId("end-silence").click();
  await expect(silenced).toHaveCount(0);

  await page.goto("/runs");
  await expect(page.getByTestId("bulk-actions")).toBeVisible();
  const hanging = page.locator(`[data-testid="run-row"][data-run-id="${fx.hangingRunId}"]`);
  await expect(hanging.getByTestId("cancel-run")).toBeVisible();
  const hollow = page.locator(`[data-testid="run-row"][data-run-id="${fx.hollowRunId}"]`);
  await expect(hollow.getByTestId("rerun-run")).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/operator-runs.png", fullPage: true });

  await page.goto(`/runs/${fx.hangingRunId}`);
  await expect(page.getByTestId("cancel-run")).toBeVisible();
  await page.goto(`/runs/${fx.hollowRunId}`);
  await expect(page.getByTestId("rerun-run")).toBeVisible();

  await page.goto("/alerts");
  await expect(page.getByTestId("acknowledge-alert").first()).toBeVisible();

  await page.goto("/admin");
  await expect(page.getByText("Only admins manage accounts, tokens and secrets")).toBeVisible();
  await expect(page.getByRole("form", { name: "New secret" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "New API token" })).toHaveCount(0);

  await page.goto("/schedules/new");
  await expect(page.getByTestId("needs-role")).toHaveCount(0);
  await expect(page.getByTestId("save-schedule")).toBeVisible();
  await page.context().close();
});
