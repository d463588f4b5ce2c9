// A group's start-rate limit through the console: an operator sets it in the schedule form, the schedule
// page shows it, and a run it holds back shows "waiting: rate limit of <group>" in the runs list (with a
// tooltip) and on its run page. Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

test("a run over its group's start-rate limit waits, and the runs list and run page say so", async ({ page }) => {
  test.setTimeout(120_000);
  const group = `bank-api-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    data: {
      name: `e2e-rate-${Date.now().toString(36)}`,
      handler: "demo.sleep",
      payload: { ms: 200, records: 1 },
      trigger: YEARLY,
      overlapPolicy: "allow",
      concurrencyGroup: group,
      concurrencyLimit: 10,
    },
    headers: sameOrigin(),
  });
  expect(created.status(), await created.text()).toBe(200);
  const s = (await created.json()).schedule as { id: string };

  // The operator sets the group's rate in the schedule form: at most 1 start per hour.
  await page.goto(`/schedules/${s.id}/edit`);
  await page.getByTestId("field-startRateMax").locator("input").fill("1");
  await page.getByTestId("field-startRatePer").locator("input").fill("3600");
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(new RegExp(`/schedules/${s.id}$`));
  await expect(page.getByText(`${group}: at most 1 starts per 3600 s`)).toBeVisible();

  const trigger = async () => {
    const res = await page.request.post(`/api/schedules/${s.id}/trigger`, { data: { reason: "e2e rate limit" }, headers: sameOrigin() });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).runId as string;
  };
  const first = await trigger();
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${first}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");
  const held = await trigger();
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${held}`)).json()).run.waitReason, { timeout: 30_000 })
    .toBe("rate_limit");

  await page.goto(`/runs?scheduleId=${s.id}`);
  const row = page.locator(`[data-testid="run-row"][data-run-id="${held}"]`);
  await expect(row).toHaveAttribute("data-state", "queued");
  const waiting = row.getByTestId("run-waiting");
  await expect(waiting).toHaveText(`waiting: rate limit of ${group}`);
  await expect(waiting).toHaveAttribute("title", new RegExp(`start-rate limit of group ${group}`));
  await page.screenshot({ path: "artifacts/screenshots/runs-rate-limit-waiting.png", fullPage: true });

  await row.getByRole("link", { name: `Open run ${held}` }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${held}$`));
  await expect(page.getByTestId("run-waiting")).toContainText(`waiting: rate limit of ${group}`);
  await expect(page.locator('[data-testid="run-event"][data-type="waiting"]')).toContainText(`waiting: rate limit of ${group}`);
  await page.screenshot({ path: "artifacts/screenshots/run-rate-limit-waiting.png", fullPage: true });

  // Deleting the schedule cancels the waiting run, so nothing is left for later specs.
  const { revision } = (await (await page.request.get(`/api/schedules/${s.id}`)).json()).schedule;
  const del = await page.request.delete(`/api/schedules/${s.id}?revision=${revision}&reason=e2e%20cleanup`, { headers: sameOrigin() });
  expect(del.status(), await del.text()).toBe(200);
});
