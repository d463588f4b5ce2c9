// Retention in the console: the Workers page lists every retention setting (as the workers apply them) and the
// day partitions; a schedule keeps its own run history ("Keep run history (days)") and its page shows it with the
// "Last 90 days" from the daily summaries.
import { expect, test } from "@playwright/test";

test("the Workers page shows the retention settings; a schedule sets its own run history", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/workers");
  const settings = page.getByTestId("retention-settings");
  await expect(settings.getByTestId("retention-VIGIL_RETENTION_RUNS_DAYS")).toHaveText("30 days");
  await expect(settings.getByTestId("retention-VIGIL_RETENTION_LOGS_DAYS")).toHaveText("7 days");
  await expect(settings).toContainText("VIGIL_RETENTION_ONCE_MARKERS_DAYS");
  await expect(settings).toContainText("Audit trail");
  await expect(settings).toContainText(/run_events: \d+ day partitions/);
  // The pass's WAL settings and the server's that its WAL meets.
  await expect(settings.getByTestId("retention-wal")).toContainText("synchronous_commit off");
  // Its batches wait for gaps between the schedules' firings (VIGIL_RETENTION_YIELD_TO_RUNS, on by default).
  await expect(settings.getByTestId("retention-pacing")).toContainText("in a gap between the schedules' firings");
  await expect(settings.getByTestId("retention-server")).toContainText(/max_wal_size \S+, wal_compression \S+, checkpoint_timeout \S+/);
  await page.screenshot({ path: "artifacts/screenshots/workers-retention.png", fullPage: true });

  const name = `e2e-retention-${Date.now().toString(36)}`;
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Handler").selectOption("demo.noop");
  await page.getByLabel("Cron expression").fill("0 3 * * *");
  await page.getByLabel("Keep run history (days)").fill("365");
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("schedule-detail")).toContainText("Run history kept");
  await expect(page.getByTestId("schedule-detail")).toContainText("365 days");
  await expect(page.getByRole("heading", { name: "Last 90 days" })).toBeVisible();
});
