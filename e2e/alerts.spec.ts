// Alerts through the console: a hollow success (zero records where work was expected) shows in the header
// within seconds, the alerts page acknowledges it, and the acknowledgement is in the audit trail.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

// Fires once a year: the only runs are the ones the test triggers.
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

test("a hollow success raises an alert in the header within seconds; acknowledging it is audited", async ({ page }) => {
  // Several page loads and full-page screenshots on a shared two-core machine.
  test.setTimeout(120_000);
  const name = `e2e-hollow-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name, handler: "demo.sleep", payload: { ms: 10, records: 0 }, trigger: YEARLY, expectRecordsMin: 1, latenessMaxMs: 60_000 },
  });
  expect(created.status(), await created.text()).toBe(200);
  const schedule = (await created.json()).schedule as { id: string };

  // The lateness card's first answer is read before the run and held until the run has ended, as a slow answer on a
  // loaded machine is: the change messages meanwhile must still lead to a read after them (the card once kept this
  // answer, "0 runs started", until the 60 s safety net).
  let releaseFirstLateness = () => {};
  const firstLatenessHeld = new Promise<void>((resolve) => (releaseFirstLateness = resolve));
  let firstLatenessRead = () => {};
  const firstLatenessReadByServer = new Promise<void>((resolve) => (firstLatenessRead = resolve));
  let latenessRequests = 0;
  await page.route(`**/api/schedules/${schedule.id}/lateness*`, async (route) => {
    if (++latenessRequests > 1) return route.continue();
    const response = await route.fetch();
    firstLatenessRead();
    await firstLatenessHeld;
    await route.fulfill({ response }).catch(() => undefined);
  });

  await page.goto(`/schedules/${schedule.id}`);
  const badge = page.getByTestId("alerts-badge");
  const before = (await badge.count()) > 0 ? Number(await badge.getAttribute("data-count")) : 0;
  await firstLatenessReadByServer;

  const trig = await page.request.post(`/api/schedules/${schedule.id}/trigger`, { data: { reason: "e2e" }, headers: sameOrigin() });
  expect(trig.status(), await trig.text()).toBe(200);
  const { runId } = await trig.json();
  // The cause: the run ends hollow (succeeded with 0 records where at least 1 was expected).
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("hollow");
  const started = performance.now();
  // Within seconds the header names the newest alert: this schedule's hollow success.
  await expect(badge).toHaveAttribute("title", new RegExp(`${name}: .*hollow success`), { timeout: 10_000 });
  const seconds = (performance.now() - started) / 1000;
  expect(Number(await badge.getAttribute("data-count"))).toBeGreaterThan(before);
  await expect(badge).toContainText("Hollow success");
  releaseFirstLateness();
  console.log(`[e2e alerts] header badge showed the alert ${seconds.toFixed(1)} s after the run ended hollow`);

  // The schedule page lists it under its alerts, next to the lateness chart with its objective line.
  const scheduleAlerts = page.getByTestId("schedule-alerts");
  await expect(scheduleAlerts.locator('[data-testid="alert-row"][data-kind="hollow"]')).toBeVisible();
  await expect(page.getByTestId("schedule-lateness")).toContainText("1 run started");
  // A schedule made a moment ago is drawn from its creation, not as a dot at the right edge of six hours.
  await expect(page.getByTestId("lateness-summary")).toContainText("drawn from the schedule's creation");
  await page.screenshot({ path: "artifacts/screenshots/schedule-alerts.png", fullPage: true });

  await badge.click();
  await expect(page).toHaveURL(/\/alerts$/);
  const row = page.locator('[data-testid="alert-row"][data-kind="hollow"]').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("alert-severity")).toHaveAttribute("data-severity", "warning");
  await page.screenshot({ path: "artifacts/screenshots/alerts.png", fullPage: true });

  await row.getByTestId("acknowledge-alert").click();
  // Each open alert row holds its own (closed) dialog: take this row's.
  const dialog = row.getByTestId("acknowledge-dialog");
  await expect(dialog.getByLabel("Note (optional)")).toBeFocused();
  await page.keyboard.type("checking the upstream export, e2e");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("alert-acknowledged")).toContainText("Acknowledged by admin@vigil.test");
  await expect(row.getByTestId("acknowledge-alert")).toHaveCount(0);

  // Audited: the API has the row, and the alert's audit link shows it.
  const alertId = (await (await page.request.get(`/api/alerts?scheduleId=${schedule.id}`)).json()).alerts[0].id as string;
  const audit = await (await page.request.get(`/api/audit?action=alert.acknowledge&target=alert:${alertId}`)).json();
  expect(audit.events).toHaveLength(1);
  expect(audit.events[0]).toMatchObject({
    actor: "admin@vigil.test",
    action: "alert.acknowledge",
    targetType: "alert",
    targetId: alertId,
    reason: "checking the upstream export, e2e",
  });
  await row.getByRole("link", { name: "audit trail" }).click();
  await expect(page).toHaveURL(new RegExp(`/audit\\?target=alert(%3A|:)${alertId}$`));
  await expect(page.getByTestId("audit-row").filter({ hasText: "alert.acknowledge" })).toHaveCount(1);
  await page.screenshot({ path: "artifacts/screenshots/alert-acknowledged-audit.png", fullPage: true });

  // The workers page shows queue depth and planner lag next to the workers.
  await page.goto("/workers");
  const summary = page.getByTestId("queue-summary");
  await expect(summary.getByTestId("queue-queue-depth")).toContainText(/\d+ runs?/);
  // Due work apart from what the planner enqueued ahead of its time (a healthy fleet always has some of that).
  await expect(summary.getByTestId("queue-queue-depth")).toContainText(/\d+ enqueued ahead of their time/);
  await expect(summary.getByTestId("queue-planner-lag")).toContainText(/\d+ ms|\d+(\.\d)? s/);
  await page.screenshot({ path: "artifacts/screenshots/workers-queue.png", fullPage: true });
});
