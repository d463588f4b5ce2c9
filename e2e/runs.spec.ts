// Runs through the console: cancel a hanging run from the runs list and follow its stages to the run page;
// open a finished run's single trace. Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;
// Fires once a year: the only runs in these tests are the ones the test triggers.
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

async function createViaApi(page: Page, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await page.request.post("/api/schedules", { data: body, headers: sameOrigin() });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule;
}

test("a hanging run is cancelled from the runs list and its cancel stages show on the run page", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, {
    name: unique("e2e-hang"),
    handler: "demo.hang",
    trigger: YEARLY,
    timeoutSeconds: 600,
    graceSeconds: 2,
  });
  await page.goto(`/schedules/${s.id}`);
  await page.getByTestId("trigger-now").click();
  await page.getByTestId("trigger-dialog").getByLabel("Reason").fill("e2e: hang it");
  await page.getByTestId("confirm-trigger").click();
  await expect(page.getByTestId("action-notice")).toContainText("Triggered", { timeout: 30_000 });

  await page.goto(`/runs?scheduleId=${s.id}`);
  const row = page.getByTestId("run-row").first();
  await expect(row).toHaveAttribute("data-state", "running", { timeout: 30_000 });
  const runId = (await row.getAttribute("data-run-id"))!;

  // The confirm dialog is keyboard-usable: focus lands in the reason, Esc closes it without cancelling.
  await row.getByTestId("cancel-run").click();
  const dialog = page.getByTestId("cancel-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Reason")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(row).toHaveAttribute("data-state", "running");

  await row.getByTestId("cancel-run").click();
  await expect(dialog.getByLabel("Reason")).toBeFocused();
  await page.keyboard.type("stuck upstream, e2e");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  // The row follows the cancel live and ends cancelled (demo.hang ignores its abort: it is killed after grace).
  await expect(row).toHaveAttribute("data-state", "cancelled", { timeout: 30_000 });

  await row.getByRole("link", { name: `Open run ${runId}` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  const stages = page.getByTestId("cancel-stages");
  await expect(stages).toContainText("stuck upstream, e2e");
  await expect(stages.locator('[data-stage="cancel_requested"]')).toHaveAttribute("data-done", "true");
  await expect(stages.locator('[data-stage="cancelled"]')).toHaveAttribute("data-done", "true");
  const events = page.getByTestId("run-event");
  await expect(events.first()).toHaveAttribute("data-type", "planned");
  await expect(page.locator('[data-testid="run-event"][data-type="started"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="run-event"][data-type="cancel_requested"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="run-event"][data-type="cancelled"]')).toHaveCount(1);
  await expect(page.getByTestId("run-state").first()).toHaveAttribute("data-state", "cancelled");
  await expect(page.getByRole("link", { name: "Audit trail →" })).toHaveAttribute("href", `/audit?target=run:${runId}`);
  await page.screenshot({ path: "artifacts/screenshots/run-cancelled-stages.png", fullPage: true });
});

test("a finished run opens as one trace: timings, key, worker, events, attempts, payload and result", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, {
    name: unique("e2e-trace"),
    handler: "demo.sleep",
    payload: { ms: 300, records: 3 },
    trigger: YEARLY,
  });
  const trig = await page.request.post(`/api/schedules/${s.id}/trigger`, { data: { reason: "e2e" }, headers: sameOrigin() });
  const { runId } = await trig.json();
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");

  await page.goto("/runs");
  await page.getByRole("combobox", { name: "Schedule", exact: true }).selectOption({ label: s.name });
  const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  await expect(row).toHaveAttribute("data-state", "succeeded");
  await row.getByRole("link", { name: `Open run ${runId}` }).click();

  const trace = page.getByTestId("run-trace");
  await expect(trace.getByRole("heading", { name: `Run of ${s.name}` })).toBeVisible();
  await expect(page.getByTestId("idempotency-key")).toHaveText(new RegExp(`^manual:${s.id}:`));
  const timings = page.getByTestId("run-timings");
  for (const label of ["Planned", "Enqueued", "Started", "Finished", "Lateness", "Duration"]) await expect(timings).toContainText(label);
  await expect(page.locator('[data-testid="run-event"][data-type="started"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="run-event"][data-type="finished"]')).toHaveCount(1);
  await expect(page.getByTestId("run-attempts").locator("tbody tr")).toHaveCount(1);
  await expect(trace).toContainText('"ms": 300');
  await page.screenshot({ path: "artifacts/screenshots/run-trace.png", fullPage: true });
});

test("the runs list filters by start lateness, judged against the schedule's jitter window", async ({ page }) => {
  test.setTimeout(120_000);
  // A 60 s jitter window: a triggered run that starts within a minute is on time, however busy the machine.
  const s = await createViaApi(page, { name: unique("e2e-lateness"), handler: "demo.noop", trigger: YEARLY, startJitterMs: 60_000 });
  const trigger = await page.request.post(`/api/schedules/${s.id}/trigger`, { headers: sameOrigin(), data: { reason: "e2e" } });
  expect(trigger.status(), await trigger.text()).toBe(200);

  await page.goto(`/runs?scheduleId=${s.id}`);
  const row = page.getByTestId("run-row").first();
  await expect(row).toHaveAttribute("data-state", "succeeded", { timeout: 30_000 });
  const filter = page.getByRole("combobox", { name: "Start" });
  await filter.selectOption({ label: "◷ Started late" });
  await expect(page).toHaveURL(/lateness=late/);
  await expect(page.getByTestId("runs-empty")).toBeVisible();
  await filter.selectOption({ label: "Started on time" });
  await expect(page).toHaveURL(/lateness=on_time/);
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row").first()).not.toContainText("◷ late");
});

test("a failed or timed-out run in the last hour shows in the header and opens the runs filtered to those states", async ({ page }) => {
  test.setTimeout(120_000);
  const failing = await createViaApi(page, { name: unique("e2e-fails"), handler: "demo.flaky", payload: { p: 1 }, trigger: YEARLY });
  const slow = await createViaApi(page, {
    name: unique("e2e-times-out"),
    handler: "demo.sleep",
    payload: { ms: 60_000 },
    trigger: YEARLY,
    timeoutSeconds: 1,
    graceSeconds: 1,
  });
  for (const s of [failing, slow]) {
    const res = await page.request.post(`/api/schedules/${s.id}/trigger`, { headers: sameOrigin(), data: { reason: "e2e: header" } });
    expect(res.status(), await res.text()).toBe(200);
  }
  await page.goto("/schedules");
  // Never "All clear" with a failure in the hour: the header counts failed and timed-out runs and links to them.
  const failed = page.getByTestId("attention-failed");
  await expect(failed).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("attention")).toHaveAttribute("data-state", "alert");
  await expect(failed).toHaveAttribute("title", /failed or timed-out run\(s\) in the last hour/);
  await page.screenshot({ path: "artifacts/screenshots/header-failed.png" });
  await failed.click();
  await expect(page).toHaveURL(/\/runs\?state=failed(%2C|,)timed_out/);
  await expect(page.getByLabel("State")).toHaveValue("failed,timed_out");
  for (const [s, state] of [
    [failing, "failed"],
    [slow, "timed_out"],
  ] as const) {
    await expect(page.locator(`[data-testid="run-row"][data-state="${state}"]`).filter({ hasText: s.name })).toHaveCount(1, {
      timeout: 30_000,
    });
  }
  await expect(page.locator('[data-testid="run-row"]:not([data-state="failed"]):not([data-state="timed_out"])')).toHaveCount(0);
  await expect(page.getByTestId("bulk-rerun")).toContainText("Re-run failed or timed out runs");
  await page.screenshot({ path: "artifacts/screenshots/runs-failed-or-timed-out.png", fullPage: true });
});
