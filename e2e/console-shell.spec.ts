import { expect, test } from "@playwright/test";

test("the console loads and reports the database up and the worker live", async ({ page }) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav).toBeVisible();
  for (const item of ["Schedules", "Timeline", "Runs", "Audit", "Workers"]) {
    await expect(nav.getByRole("link", { name: item, exact: true })).toBeVisible();
  }
  await expect(page.getByTestId("health-db")).toHaveText(/DB up/);
  await expect(page.getByTestId("health-db")).toHaveAttribute("title", "Database up");
  await expect(page.getByTestId("health-worker")).toHaveText(/Worker live/);
  await page.screenshot({ path: "artifacts/screenshots/console-shell.png", fullPage: true });
});
