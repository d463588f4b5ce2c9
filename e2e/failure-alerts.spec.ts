// A schedule that keeps failing alerts out of the box: no "Failures before alerting" set, three failed runs in a row
// raise a critical "Consecutive failures" alert on /alerts; the schedule form shows the default in force.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

// Fires once a year: the only runs are the ones the test triggers.
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

test("the form shows the failure alert default; three failures of a schedule that sets none raise a critical alert", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/schedules/new");
  const field = page.getByTestId("field-failureAlertThreshold");
  await expect(field.locator("input")).toHaveAttribute("placeholder", "default: 3");
  await expect(field).toContainText(
    "Empty = the global default, 3 (VIGIL_ALERT_FAILURE_THRESHOLD); 0 = never alert on this schedule's failures.",
  );
  await field.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/screenshots/failure-alert-field.png" });

  const name = `e2e-failing-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name, handler: "demo.flaky", payload: { p: 1 }, trigger: YEARLY },
  });
  expect(created.status(), await created.text()).toBe(200);
  const schedule = (await created.json()).schedule as { id: string; failureAlertThreshold: number | null };
  expect(schedule.failureAlertThreshold).toBeNull();
  for (let i = 1; i <= 3; i++) {
    const trig = await page.request.post(`/api/schedules/${schedule.id}/trigger`, { data: { reason: `e2e ${i}` }, headers: sameOrigin() });
    expect(trig.status(), await trig.text()).toBe(200);
    const { runId } = await trig.json();
    await expect
      .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
      .toBe("failed");
  }

  await page.goto("/alerts");
  const row = page.locator('[data-testid="alert-row"][data-kind="failures"]').filter({ hasText: name });
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  await expect(row).toContainText(`${name}: 3 consecutive runs failed (threshold 3, the default; last ended failed)`);
  await expect(row.getByTestId("alert-severity")).toHaveAttribute("data-severity", "critical");
  await page.screenshot({ path: "artifacts/screenshots/alerts-failures-default.png", fullPage: true });
});
