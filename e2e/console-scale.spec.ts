// The console at fleet scale, in Chromium against the real console: the schedules page pages,
// searches and sorts on the server with its controls in the URL; the timeline summarises a dense window instead
// of truncating it, zooms from the summary into single runs, pages its lanes and sorts them most trouble first.
// History is seeded in bulk SQL (test/seed-history.ts, the shape e2e/timeline-perf.spec.ts uses).
import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { removeSeededSchedules, seedScheduleHistory } from "../test/seed-history";

async function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: process.env.VIGIL_E2E_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const unseed = (prefix: string) => withClient((c) => removeSeededSchedules(c, prefix));

/** Every run of one schedule in the last `hours` becomes a failure: the schedule with the most trouble. */
const makeTroubled = (name: string, hours: number) =>
  withClient((c) =>
    c.query(
      `UPDATE runs SET state = 'failed' WHERE schedule_id = (SELECT id FROM schedules WHERE name = $1 AND deleted_at IS NULL)
          AND planned_at > now() - make_interval(hours => $2) AND planned_at <= now()`,
      [name, hours],
    ),
  );

const lanes = (page: Page) => page.locator('[data-testid="timeline-lane"]');

test("the schedules page pages, searches and sorts 120 schedules on the server, with its controls in the URL", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `pg${Date.now().toString(36)}-`;
  await withClient((c) => seedScheduleHistory(c, { prefix, schedules: 120, hours: 1, aheadHours: 0.1 }));
  try {
    await makeTroubled(`${prefix}00077`, 1);
    await page.goto(`/schedules?q=${prefix}`);
    // The first page of a cold console on a busy machine may take a while; the rest is quick.
    await expect(page.getByTestId("schedules-range")).toHaveText("1–50 of 120", { timeout: 45_000 });
    await expect(page.getByTestId("schedule-row")).toHaveCount(50);
    await expect(page.getByTestId("schedule-row").first()).toHaveAttribute("data-name", `${prefix}00001`);
    await page.getByRole("button", { name: "Next →" }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(page.getByTestId("schedules-range")).toHaveText("51–100 of 120");
    await expect(page.getByTestId("schedule-row").first()).toHaveAttribute("data-name", `${prefix}00051`);

    // Most trouble first: the schedule whose every run failed leads, on page 1 again.
    await page.getByLabel("Sort").selectOption("trouble");
    await expect(page).toHaveURL(/sort=trouble/);
    await expect(page.getByTestId("schedules-range")).toHaveText("1–50 of 120");
    await expect(page.getByTestId("schedule-row").first()).toHaveAttribute("data-name", `${prefix}00077`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: "artifacts/screenshots/schedules-most-trouble-first.png", fullPage: false });

    // A reload keeps the view (the URL holds it); a search narrows it to one schedule.
    await page.reload();
    await expect(page.getByTestId("schedule-row").first()).toHaveAttribute("data-name", `${prefix}00077`);
    await page.getByTestId("schedules-search").fill(`${prefix}00042`);
    await expect(page.getByTestId("schedule-row")).toHaveCount(1);
    await expect(page.getByTestId("schedules-range")).toHaveText("1–1 of 1");
    await expect(page).toHaveURL(new RegExp(`q=${prefix}00042`));
    // By tag: every tenth seeded schedule is tagged payments.
    await page.getByTestId("schedules-search").fill(prefix);
    await page.getByLabel("Tag").fill("payments");
    await expect(page.getByTestId("schedules-range")).toHaveText("1–12 of 12");
    await expect(page.getByTestId("schedule-row").first().getByTestId("tag-list")).toContainText("payments");
    await page.screenshot({ path: "artifacts/screenshots/schedules-search-tag.png", fullPage: false });
  } finally {
    await unseed(prefix);
  }
});

test("the timeline summarises a dense window instead of truncating it, and zooming in brings back single runs", async ({ page }) => {
  test.setTimeout(180_000);
  const prefix = `tl${Date.now().toString(36)}-`;
  // 12 schedules × 25 h at one a minute: a 24 h window holds ~1,440 runs a lane, more than its pixels.
  await withClient((c) => seedScheduleHistory(c, { prefix, schedules: 12, hours: 25 }));
  try {
    await makeTroubled(`${prefix}00009`, 24);
    await page.goto(`/timeline?q=${prefix}`);
    await expect(lanes(page)).toHaveCount(12);
    await page.getByRole("combobox", { name: "Window" }).selectOption({ label: "Last 24 h + next 1 h" });
    const chart = page.getByTestId("timeline-chart");
    await expect(chart).toHaveAttribute("data-mode", "summary", { timeout: 30_000 });
    await expect(page.getByTestId("timeline-summarised")).toBeVisible();
    // The whole window is drawn: every lane counts its full day of occurrences, none dropped.
    await expect.poll(async () => Number(await lanes(page).first().getAttribute("data-occurrences"))).toBeGreaterThan(1400);
    await expect(page.locator('[data-testid="timeline-marks"] path[data-mark="bar:failed"]')).toHaveCount(1);
    await expect(page.locator('[data-testid="timeline-marks"] path[data-mark="late"]')).toHaveCount(1);
    await expect(page.locator('[data-testid="timeline-marks"] path[data-mark="marker:missed"]')).toHaveCount(1);

    // Most trouble first: the schedule whose every run failed moves to the top.
    await expect(lanes(page).first()).toHaveAttribute("data-schedule", `${prefix}00001`);
    await page.getByTestId("timeline-sort").selectOption("trouble");
    await expect(lanes(page).first()).toHaveAttribute("data-schedule", `${prefix}00009`);
    await page.screenshot({ path: "artifacts/screenshots/timeline-summary-most-trouble-first.png", fullPage: true });

    // Hover a bucket of the second lane a third of the way in: its counts; a click zooms into its runs.
    const hit = page.getByTestId("timeline-hit-area");
    const tip = page.getByTestId("timeline-tooltip");
    await expect(async () => {
      const box = (await hit.boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.33, box.y + (box.height / 12) * 1.7);
      await expect(tip).toHaveAttribute("data-bucket", "true", { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(tip).toContainText("Click to zoom in");
    await expect(tip.getByTestId("bucket-counts")).toContainText("succeeded");
    await page.screenshot({ path: "artifacts/screenshots/timeline-summary-bucket.png", fullPage: false });
    await page.mouse.down();
    await page.mouse.up();
    await expect(page.getByRole("combobox", { name: "Window" })).toHaveValue("custom");
    await expect(chart).toHaveAttribute("data-mode", "runs", { timeout: 30_000 });
    await expect(page.locator('[data-testid="timeline-marks"] path[data-mark="bar:succeeded"]')).toHaveCount(1);
    // Single runs again: hovering one shows a run's own card.
    await expect(async () => {
      const box = (await hit.boundingBox())!;
      const bar = (await page.locator('[data-testid="timeline-marks"] path[data-mark="bar:succeeded"]').boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.5, bar.y + bar.height - 2);
      await expect(tip).toContainText("Planned", { timeout: 1000 });
      await expect(tip).not.toHaveAttribute("data-bucket", "true");
    }).toPass({ timeout: 20_000 });
    await page.screenshot({ path: "artifacts/screenshots/timeline-zoomed-to-runs.png", fullPage: true });
  } finally {
    await unseed(prefix);
  }
});

test("the timeline draws one page of lanes at a time and pages through the rest", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `lp${Date.now().toString(36)}-`;
  await withClient((c) => seedScheduleHistory(c, { prefix, schedules: 55, hours: 1 }));
  try {
    await page.goto(`/timeline?q=${prefix}`);
    await expect(page.getByTestId("timeline-lane-range")).toHaveText("lanes 1–50 of 55");
    await expect(lanes(page)).toHaveCount(50);
    await page.getByRole("button", { name: "↓ Next lanes" }).click();
    await expect(page.getByTestId("timeline-lane-range")).toHaveText("lanes 51–55 of 55");
    await expect(lanes(page)).toHaveCount(5);
    await expect(lanes(page).first()).toHaveAttribute("data-schedule", `${prefix}00051`);
  } finally {
    await unseed(prefix);
  }
});
