// The timeline's default window fits a young history: a schedule created a moment ago is shown in the narrowest
// preset that holds all of its runs, not as a sliver at the right edge of six hours (what a new install saw first).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

test("a schedule created a moment ago opens in the 15-minute window; choosing another and going back returns to it", async ({ page }) => {
  test.setTimeout(90_000);
  const name = `e2e-window-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    data: { name, handler: "demo.noop", trigger: { kind: "cron", cron: "*/10 * * * * *", timezone: "UTC" } },
    headers: sameOrigin(),
  });
  expect(created.status(), await created.text()).toBe(200);
  const { id } = (await created.json()).schedule as { id: string };

  await page.goto(`/timeline?scheduleId=${id}`);
  const windowSelect = page.getByRole("combobox", { name: "Window" });
  await expect(windowSelect.locator("option:checked")).toHaveText("Last 15 min + next 5 min");
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${name}"]`)).toHaveCount(1);
  const backToNow = page.getByRole("button", { name: "⟲ Back to now" });
  await expect(backToNow).toBeDisabled();
  await page.screenshot({ path: "artifacts/screenshots/timeline-young-history.png", fullPage: true });

  // The operator's choice stands (no refit behind their back); "Back to now" returns to the fitted window.
  await windowSelect.selectOption({ label: "Last 6 h + next 1 h" });
  await expect(windowSelect.locator("option:checked")).toHaveText("Last 6 h + next 1 h");
  await page.waitForTimeout(2500);
  await expect(windowSelect.locator("option:checked")).toHaveText("Last 6 h + next 1 h");
  await backToNow.click();
  await expect(windowSelect.locator("option:checked")).toHaveText("Last 15 min + next 5 min");
});
