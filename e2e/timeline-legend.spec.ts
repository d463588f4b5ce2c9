// The timeline's legend counts what the lanes draw. A schedule firing every 10 s has runs enqueued up to 30 s ahead
// (state queued, not started): the lane draws them as planned markers, and the legend used to count them as
// "running" — a filtered lane read "running 3" with at most one run in progress.
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

test("on a filtered lane, the legend's running count is the runs in progress, not the runs enqueued ahead", async ({ page }) => {
  test.setTimeout(120_000);
  const name = `e2e-legend-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    data: {
      name,
      handler: "demo.sleep",
      payload: { ms: 300, records: 1 },
      trigger: { kind: "cron", cron: "*/10 * * * * *", timezone: "UTC" },
    },
    headers: sameOrigin(),
  });
  expect(created.status(), await created.text()).toBe(200);
  const { id } = (await created.json()).schedule as { id: string };
  const runsIn = async (state: string) => {
    const res = await page.request.get(`/api/runs?scheduleId=${id}&state=${state}`);
    expect(res.status()).toBe(200);
    return ((await res.json()) as { runs: unknown[] }).runs.length;
  };

  await page.goto("/timeline");
  await page.getByRole("searchbox", { name: "Schedule", exact: true }).fill(name);
  // The filter applied: this schedule's lane alone (before it, every lane shows, with other schedules' runs).
  await expect(page.locator('[data-testid="timeline-lane"]')).toHaveCount(1);
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${name}"]`)).toHaveCount(1);
  // Runs of this schedule have finished (the legend counts the lanes shown), and more are enqueued ahead of their time.
  const succeeded = async () => Number(((await page.getByTestId("legend-succeeded").textContent()) ?? "").trim().split(/\s+/).at(-1));
  await expect.poll(succeeded, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(page.locator('[data-testid="timeline-marks"] path[data-mark="bar:succeeded"]').first()).toBeAttached();
  await expect.poll(() => runsIn("queued"), { timeout: 30_000 }).toBeGreaterThan(0);
  const running = page.getByTestId("legend-running");
  // Overlap policy skip: at most one run of the schedule is in progress at any moment, whatever is queued.
  for (let i = 0; i < 5; i++) {
    const text = (await running.textContent()) ?? "";
    expect(Number(text.trim().split(/\s+/).at(-1))).toBeLessThanOrEqual(1);
    await page.waitForTimeout(700);
  }
  expect(await succeeded()).toBeGreaterThan(0);
  await page.screenshot({ path: "artifacts/screenshots/timeline-legend-filtered.png", fullPage: true });
});
