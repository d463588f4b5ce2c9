// The trigger builder beyond the cron presets: a DST-crossing cron flagged in the live preview and following the
// chosen gap policy, an interval schedule and a one-off saved through the form, and a one-off in the past refused
// at its field.
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;

async function startForm(page: Page, name: string): Promise<void> {
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Handler").selectOption("demo.noop");
}

async function deleteByName(page: Page, name: string): Promise<void> {
  const list = await (await page.request.get(`/api/schedules?q=${name}`)).json();
  for (const s of list.schedules)
    expect((await page.request.delete(`/api/schedules/${s.id}`, { headers: sameOrigin() })).status()).toBe(200);
}

test("a cron at 02:30 New York time is flagged where DST skips that hour, and follows the chosen gap policy", async ({ page }) => {
  test.setTimeout(120_000);
  const name = unique("e2e-dst");
  await startForm(page, name);
  // 14 March 2027 is the second Sunday of March: clocks jump from 02:00 to 03:00 in New York.
  await page.getByLabel("Cron expression").fill("30 2 14 3 *");
  await page.getByLabel("Time zone").fill("America/New_York");
  const rows = page.getByTestId("preview-row");
  await expect(rows).toHaveCount(10);
  const first = rows.first();
  await expect(first).toContainText("⤳ gap");
  // Shift (the default): it runs once, right after the gap, at 03:00 local (EDT, UTC−4).
  await expect(first).toContainText("2027-03-14");
  await expect(first).toContainText("03:00");
  await expect(first).not.toHaveClass(/struck/);
  // A year where 14 March is not the DST Sunday has no flag.
  await expect(rows.nth(1)).toContainText("2028-03-14");
  await expect(rows.nth(1)).toContainText("02:30");
  await expect(rows.nth(1)).not.toContainText("gap");

  await page.getByLabel("If the time does not exist (DST jumps forward)").selectOption("skip");
  await expect(first).toHaveClass(/struck/);
  await expect(first).toContainText("(skipped)");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: "artifacts/screenshots/schedule-dst-preview.png", fullPage: true });

  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("trigger-description")).toContainText("skipped when DST jumps over it");
  await expect(page.getByTestId("trigger-description")).toContainText("America/New_York");
  await deleteByName(page, name);
});

test("an interval and a one-off are saved through the form; a one-off in the past is refused at its field", async ({ page }) => {
  test.setTimeout(120_000);
  const every = unique("e2e-interval");
  await startForm(page, every);
  await page.getByRole("radiogroup", { name: "Trigger kind" }).getByText("Interval").click();
  await page.getByLabel("Every (seconds)").fill("90");
  const rows = page.getByTestId("preview-row");
  await expect(rows).toHaveCount(10);
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("trigger-description")).toContainText(/every 90 seconds|every 1 min 30 s|every 1\.5 minutes/);
  await deleteByName(page, every);

  const once = unique("e2e-once");
  await startForm(page, once);
  await page.getByRole("radiogroup", { name: "Trigger kind" }).getByText("One-off").click();
  // datetime-local takes the viewer's local wall time; the page's clock is the browser's.
  const local = (msFromNow: number) =>
    page.evaluate((ms) => {
      const d = new Date(Date.now() + ms);
      const pad = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    }, msFromNow);
  await page.getByLabel("At (your local time)").fill(await local(-3_600_000));
  const onceError = page.getByTestId("field-once-error");
  await page.getByTestId("save-schedule").click();
  await expect(onceError).toBeVisible();
  await expect(onceError).toContainText(/past/i);
  await expect(page).toHaveURL(/\/schedules\/new$/);
  expect((await (await page.request.get(`/api/schedules?q=${once}`)).json()).schedules).toHaveLength(0);

  await page.getByLabel("At (your local time)").fill(await local(3_600_000));
  await expect(rows).toHaveCount(1);
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("trigger-description")).toContainText("once at");
  await page.screenshot({ path: "artifacts/screenshots/schedule-one-off.png", fullPage: true });
  await deleteByName(page, once);
});
