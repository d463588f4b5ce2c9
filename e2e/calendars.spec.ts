// Business calendars as an operator uses them: create a calendar on the Calendars page, make a schedule follow it in
// the schedule's form, then add a window blocking the next two hours and see, before saving, which of the schedule's
// next fires it removes; confirm, and find the calendar on the schedule's page. Real console, worker and Postgres.
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const CALENDAR = `E2E maintenance ${suffix}`;
const SCHEDULE = `e2e-cal-hourly-${suffix}`;

test("a calendar excluding a window: linked to a schedule, its effect previewed before saving", async ({ page }) => {
  // Eight page loads and two saves: about a minute on a busy two-CPU machine.
  test.setTimeout(180_000);
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name: SCHEDULE, handler: "demo.noop", trigger: { kind: "cron", cron: "0 * * * *", timezone: "UTC" } },
  });
  expect(created.status(), await created.text()).toBe(200);
  const scheduleId = (await created.json()).schedule.id as string;

  await page.goto("/calendars");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Calendars" }).waitFor();
  await page.getByTestId("new-calendar").click();
  await page.getByTestId("calendar-name").getByRole("textbox").fill(CALENDAR);
  await page.getByTestId("calendar-timezone").getByRole("textbox").fill("UTC");
  await page.getByTestId("save-calendar").click();
  await expect(page).toHaveURL(/\/calendars\/[0-9a-f-]{36}$/);
  const calendarUrl = page.url();

  // The schedule follows it (skip), chosen in the schedule's own form.
  await page.goto(`/schedules/${scheduleId}/edit`);
  const fieldset = page.getByTestId("schedule-calendars");
  await fieldset.getByTestId("add-schedule-calendar").click();
  await fieldset.getByLabel("Calendar 1", { exact: true }).selectOption(CALENDAR);
  await fieldset.getByLabel("Calendar 1 policy").selectOption("skip");
  await page.getByTestId("save-schedule").click();
  // Calendars change the plan: the edit's dry run shows its effect first (none yet: the calendar blocks nothing).
  const diff = page.getByTestId("edit-diff");
  await expect(diff).toContainText("Changed: calendars");
  await diff.getByTestId("confirm-save").click();
  await expect(page).toHaveURL(new RegExp(`/schedules/${scheduleId}$`));
  await expect(page.getByTestId("schedule-calendars")).toContainText(`calendar ${CALENDAR} (skip)`);
  await page.screenshot({ path: "artifacts/calendars-schedule.png" });

  // A window over the next two hours, every day, in UTC: the next hourly fire falls in it.
  await page.goto(calendarUrl);
  await page.getByTestId("add-window").click();
  const window = page.getByTestId("calendar-window");
  for (const day of ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]) await window.getByLabel(day).check();
  const hour = new Date().getUTCHours();
  const hh = (h: number) => `${String(h % 24).padStart(2, "0")}:00`;
  await window.getByLabel("Window 1 start").fill(hh(hour));
  await window.getByLabel("Window 1 end").fill(hh(hour + 2));
  await page.getByTestId("save-calendar").click();

  const preview = page.getByTestId("calendar-change-preview");
  await expect(preview).toContainText("Next fires that change: 1 schedule");
  const change = preview.getByTestId("calendar-change");
  await expect(change.getByRole("link", { name: SCHEDULE })).toBeVisible();
  await expect(change.getByTestId("changed-fire").first()).toContainText("excluded");
  await expect(change.getByTestId("changed-fire").first()).toContainText(`excluded by calendar "${CALENDAR}"`);
  await page.screenshot({ path: "artifacts/calendars-preview.png", fullPage: true });
  // Nothing is saved until confirmed.
  const before = await page.request.get(`/api/calendars/${calendarUrl.split("/").at(-1)}`);
  expect((await before.json()).calendar.windows).toEqual([]);

  await page.getByTestId("save-calendar").click();
  await expect(page.getByTestId("calendar-notice")).toContainText("Saved revision 2");
  const after = await page.request.get(`/api/calendars/${calendarUrl.split("/").at(-1)}`);
  expect((await after.json()).calendar.windows).toEqual([{ weekdays: [0, 1, 2, 3, 4, 5, 6], start: hh(hour), end: hh(hour + 2) }]);

  // The schedule page's next fires say the same: the first one, in the window, is excluded by the calendar.
  await page.goto(`/schedules/${scheduleId}`);
  const firstFire = page.getByTestId("fire-preview").getByTestId("preview-plan").first();
  await expect(firstFire).toHaveAttribute("data-fate", "excluded");
  await expect(firstFire).toContainText(`excluded by calendar "${CALENDAR}"`);
  await page.getByTestId("fire-preview").screenshot({ path: "artifacts/calendars-schedule-next-fires.png" });

  await page.goto("/calendars");
  const row = page.getByTestId("calendar-row").filter({ hasText: CALENDAR });
  await expect(row).toContainText(SCHEDULE);
  await page.screenshot({ path: "artifacts/calendars-list.png", fullPage: true });

  // Deleting it is refused while the schedule follows it, with the schedule named.
  const refused = await page.request.delete(`/api/calendars/${calendarUrl.split("/").at(-1)}`, { headers: sameOrigin() });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toContain(SCHEDULE);

  // Leave nothing behind for other specs.
  const s = await (await page.request.get(`/api/schedules/${scheduleId}`)).json();
  await page.request.delete(`/api/schedules/${scheduleId}?revision=${s.schedule.revision}`, { headers: sameOrigin() });
});
