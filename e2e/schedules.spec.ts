// Schedules through the console: create with the form and watch it on the timeline, an invalid cron that
// saves nothing, pause then resume. Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;

async function createViaApi(page: Page, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await page.request.post("/api/schedules", { data: body, headers: sameOrigin() });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule;
}

test("a schedule created through the form shows its occurrences on the timeline", async ({ page }) => {
  test.setTimeout(120_000);
  const name = unique("e2e-form");
  await page.goto("/schedules");
  await page.getByTestId("new-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/new$/);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Description").fill("created by the e2e suite");
  await page.getByLabel("Handler").selectOption("demo.sleep");
  // The handler's payload fields are listed and the example payload fits its schema.
  await expect(page.getByTestId("payload-fields")).toContainText("ms");
  await page.getByLabel("Payload (JSON)").fill('{ "ms": 200, "records": 1 }');
  await expect(page.getByTestId("field-payload")).toContainText("fits the handler's schema");
  await page.getByRole("button", { name: "Every 10 s" }).click();
  await expect(page.getByLabel("Cron expression")).toHaveValue("*/10 * * * * *");
  await expect(page.getByTestId("preview-row")).toHaveCount(10);
  await page.getByTestId("save-schedule").click();

  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name })).toBeVisible();
  await expect(page.getByTestId("trigger-description")).toHaveText("every 10 seconds (UTC)");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Timeline" }).click();
  await expect(page).toHaveURL(/\/timeline$/);
  await page.getByRole("searchbox", { name: "Schedule", exact: true }).fill(name);
  const lane = page.locator(`[data-testid="timeline-lane"][data-schedule="${name}"]`);
  await expect(lane).toHaveCount(1);
  // Planned occurrences appear first; within a couple of fires the worker has run some of them.
  await expect.poll(async () => Number(await lane.getAttribute("data-occurrences")), { timeout: 30_000 }).toBeGreaterThan(1);
  await expect.poll(async () => Number(await lane.getAttribute("data-ran")), { timeout: 30_000 }).toBeGreaterThan(0);
  await page.getByRole("combobox", { name: "Window" }).selectOption({ label: "Last 15 min + next 5 min" });
  const bars = page.locator('[data-testid="timeline-marks"] path[data-mark="bar:succeeded"]');
  await expect(bars).toHaveCount(1, { timeout: 20_000 });
  // Hovering the newest bar shows planned / started / finished / lateness; the path's right edge is that bar.
  // (Measured again on each try: the header can change height when an alert badge appears.)
  const tip = page.getByTestId("timeline-tooltip");
  await expect(async () => {
    const box = (await bars.boundingBox())!;
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    await expect(tip).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  for (const word of ["Planned", "Started", "Finished", "Lateness"]) await expect(tip).toContainText(word);
  await expect(tip).toContainText(name);
  await page.screenshot({ path: "artifacts/screenshots/schedule-created-timeline.png", fullPage: true });
  // Clicking the mark opens its run. The window slides left about a pixel a second and the bar is a few pixels wide,
  // so the point hovered before the screenshot may have moved off it: aim again at the bar's current edge each try.
  await expect(async () => {
    if (/\/runs\/[0-9a-f-]{36}$/.test(page.url())) return; // an earlier try's click landed, just slowly
    const box = (await bars.boundingBox())!;
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    await expect(tip).toBeVisible({ timeout: 1000 });
    await page.mouse.down();
    await page.mouse.up();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 2000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("run-trace")).toContainText(name);
  const id = /schedules\/([0-9a-f-]{36})/.exec((await page.getByRole("link", { name }).getAttribute("href"))!)![1];

  // Without a mouse: the chart takes focus, arrow keys move between runs, Enter opens the one shown.
  await page.goto(`/timeline?scheduleId=${id}`);
  await expect(lane).toHaveCount(1);
  await page.getByTestId("timeline-hit-area").focus();
  await page.keyboard.press("ArrowDown");
  await expect(tip).toBeVisible();
  await expect(tip).toContainText(name);
  await expect(page.getByTestId("timeline-focus")).toHaveCount(1);
  // The run nearest now may be the first one, but planned runs always follow: right, then back left.
  const first = await tip.textContent();
  await page.keyboard.press("ArrowRight");
  await expect.poll(() => tip.textContent()).not.toBe(first);
  await page.keyboard.press("ArrowLeft");
  await expect(tip).toContainText(first!.slice(first!.indexOf("Planned"), first!.indexOf("Started")));
  await page.screenshot({ path: "artifacts/screenshots/timeline-keyboard.png" });
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-trace")).toContainText(name);
  // It fires every 10 s: delete it so it does not load the rest of the suite.
  expect((await page.request.delete(`/api/schedules/${id}`, { headers: sameOrigin() })).status()).toBe(200);
});

test("an invalid cron is shown at its field and nothing is saved", async ({ page }) => {
  test.setTimeout(120_000);
  const name = unique("e2e-badcron");
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Handler").selectOption("demo.noop");
  await page.getByLabel("Cron expression").fill("61 * * * *");
  // The live preview already asks the server, which names the field.
  const cronError = page.getByTestId("field-cron-error");
  await expect(cronError).toBeVisible();
  await expect(cronError).toContainText(/61/);
  await expect(page.getByLabel("Cron expression")).toHaveAttribute("aria-invalid", "true");
  await page.getByTestId("save-schedule").click();
  await expect(page.getByTestId("form-error")).toBeVisible();
  await expect(cronError).toBeVisible();
  await expect(page).toHaveURL(/\/schedules\/new$/);
  const list = await page.request.get(`/api/schedules?q=${name}`);
  expect((await list.json()).schedules).toHaveLength(0);
  // Full-page screenshots of a scrolled page repeat the sticky header mid-page: start from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: "artifacts/screenshots/schedule-invalid-cron.png", fullPage: true });
});

test("pause with a reason, then resume after seeing what the misfire policy will enqueue", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, {
    name: unique("e2e-pause"),
    handler: "demo.noop",
    trigger: { kind: "cron", cron: "*/5 * * * *", timezone: "Europe/Berlin" },
    misfirePolicy: "run_once",
  });
  await page.goto(`/schedules/${s.id}`);
  await expect(page.getByTestId("schedule-state")).toHaveAttribute("data-state", "active");

  await page.getByTestId("pause-schedule").click();
  const pause = page.getByTestId("pause-dialog");
  await expect(pause).toBeVisible();
  await expect(pause.getByLabel("Reason")).toBeFocused();
  await pause.getByLabel("Reason").fill("upstream maintenance");
  await pause.getByTestId("confirm-pause").click();
  await expect(pause).toBeHidden();
  const state = page.getByTestId("schedule-state");
  await expect(state).toHaveAttribute("data-state", "paused");
  await expect(state).toContainText("upstream maintenance");
  await expect(state).toContainText("until resumed");

  await page.goto(`/schedules?q=${s.name}`);
  const row = page.locator(`[data-testid="schedule-row"][data-name="${s.name}"]`);
  await expect(row.getByTestId("schedule-state")).toContainText("upstream maintenance");
  await page.screenshot({ path: "artifacts/screenshots/schedules-list-paused.png", fullPage: true });
  await row.getByRole("link", { name: s.name }).click();

  await page.getByTestId("resume-schedule").click();
  const resume = page.getByTestId("resume-dialog");
  await expect(resume.getByTestId("resume-preview")).toBeVisible();
  await expect(resume.getByTestId("resume-count")).toHaveText(/^\d+$/);
  await expect(resume).toContainText("run_once");
  await page.screenshot({ path: "artifacts/screenshots/schedule-resume-preview.png" });
  await resume.getByTestId("confirm-resume").click();
  await expect(resume).toBeHidden();
  await expect(page.getByTestId("schedule-state")).toHaveAttribute("data-state", "active");
  await expect(page.getByTestId("action-notice")).toContainText("Resumed");
  await page.screenshot({ path: "artifacts/screenshots/schedule-paused-resumed.png", fullPage: true });
});

test("an edit made on a stale revision is refused with a reload option, and the other change survives", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, {
    name: unique("e2e-stale"),
    handler: "demo.noop",
    trigger: { kind: "interval", everySeconds: 3600 },
  });
  await page.goto(`/schedules/${s.id}`);
  await page.getByTestId("edit-schedule").click();
  await expect(page).toHaveURL(new RegExp(`/schedules/${s.id}/edit$`));
  await expect(page.getByText("Editing revision 1.")).toBeVisible();
  await page.getByLabel("Description").fill("my edit");

  // Someone else saves first.
  const other = await page.request.patch(`/api/schedules/${s.id}`, {
    data: { revision: 1, description: "their edit" },
    headers: sameOrigin(),
  });
  expect(other.status(), await other.text()).toBe(200);

  await page.getByTestId("save-schedule").click();
  const banner = page.getByTestId("stale-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toBeInViewport();
  await expect(page).toHaveURL(new RegExp(`/schedules/${s.id}/edit$`));
  const stored = await (await page.request.get(`/api/schedules/${s.id}`)).json();
  expect(stored.schedule.description).toBe("their edit");
  await page.screenshot({ path: "artifacts/screenshots/schedule-stale-edit.png" });

  await page.getByTestId("reload-latest").click();
  await expect(banner).toBeHidden();
  await expect(page.getByLabel("Description")).toHaveValue("their edit");
  await expect(page.getByText("Editing revision 2.")).toBeVisible();
});

test("editing only the description keeps an interval's API-set anchor and everything else, and re-plans nothing", async ({ page }) => {
  test.setTimeout(120_000);
  // Fires at hh:mm:07.250 every minute: a grid only the anchor defines (the form shows no anchor input).
  const anchor = "2026-01-01T00:00:07.250Z";
  const s = await createViaApi(page, {
    name: unique("e2e-anchor"),
    handler: "demo.noop",
    trigger: { kind: "interval", everySeconds: 60, anchor },
    startingDeadlineSeconds: 45,
    latenessMaxMs: 5000,
  });
  const read = async () => (await (await page.request.get(`/api/schedules/${s.id}`)).json()).schedule;
  const before = await read();
  const future = () => new Date(Date.now() + 10 * 60_000).toISOString();
  const planned = async () =>
    (
      (await (await page.request.get(`/api/runs?scheduleId=${s.id}&to=${future()}&limit=500`)).json()).runs as {
        plannedAt: string;
        state: string;
      }[]
    )
      .filter((r) => r.state !== "cancelled")
      .map((r) => r.plannedAt);
  await expect.poll(async () => (await planned()).length, { timeout: 30_000 }).toBeGreaterThan(0);

  await page.goto(`/schedules/${s.id}/edit`);
  await expect(page.getByText("Editing revision 1.")).toBeVisible();
  await expect(page.getByTestId("field-every")).toContainText(anchor);
  await page.getByLabel("Description").fill("only this changed");
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(new RegExp(`/schedules/${s.id}$`));

  const after = await read();
  expect(after.revision).toBe(2);
  expect(after.description).toBe("only this changed");
  // Everything but the edit itself and what moves with time (the planner's cursor, next fire, last run, counts).
  const moving = ["description", "revision", "updatedAt", "plannedThrough", "nextFireAt", "lastRun", "counts24h", "recentLateness"];
  const settled = (v: Record<string, unknown>) => Object.fromEntries(Object.entries(v).filter(([k]) => !moving.includes(k)));
  const [kept, was] = [settled(after), settled(before)];
  expect(kept).toEqual(was);
  expect(after.trigger).toEqual({ kind: "interval", everySeconds: 60, anchor });
  // The edit's audit entry names the description only, and every occurrence still sits on the anchor's grid.
  const audit = (await (await page.request.get(`/api/audit?target=schedule:${s.id}&action=schedule.edit`)).json()).events;
  expect(audit.map((e: { after: Record<string, unknown> }) => Object.keys(e.after).sort())).toEqual([["description", "revision"]]);
  const instants = await planned();
  expect(instants.length).toBeGreaterThan(0);
  expect(instants.filter((at) => Date.parse(at) % 60_000 !== 7250)).toEqual([]);
});

test("backfill a past range after previewing its count, then delete the schedule after confirming", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, {
    name: unique("e2e-backfill"),
    handler: "demo.noop",
    trigger: { kind: "cron", cron: "* * * * *", timezone: "UTC" },
  });
  await page.goto(`/schedules/${s.id}`);
  await page.getByTestId("backfill-schedule").click();
  const dialog = page.getByTestId("backfill-dialog");
  await expect(dialog).toBeVisible();
  // The last five whole minutes, typed as the operator would (local datetime inputs).
  const [from, to] = await page.evaluate(() => {
    const local = (d: Date) => {
      const p = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:00`;
    };
    const end = new Date();
    end.setSeconds(0, 0);
    end.setMinutes(end.getMinutes() - 1);
    return [local(new Date(end.getTime() - 4 * 60_000)), local(end)];
  });
  await dialog.getByLabel("From (your local time)").fill(from!);
  await dialog.getByLabel("To (your local time)").fill(to!);
  await dialog.getByTestId("preview-backfill").click();
  const preview = dialog.getByTestId("backfill-preview");
  await expect(preview).toContainText("5 fire(s) in the range");
  const enqueue = dialog.getByTestId("confirm-backfill");
  await expect(enqueue).toHaveText(/Enqueue \d+ run\(s\)/);
  await page.screenshot({ path: "artifacts/screenshots/schedule-backfill-preview.png" });
  await enqueue.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("action-notice")).toContainText("Backfill enqueued");
  await expect(page.getByTestId("run-row").filter({ hasText: "backfill" }).first()).toBeVisible({ timeout: 30_000 });

  await page.getByTestId("delete-schedule").click();
  const del = page.getByTestId("delete-dialog");
  await expect(del).toContainText("never be planned again");
  await del.getByTestId("confirm-delete").click();
  await expect(page).toHaveURL(/\/schedules$/);
  await expect(page.locator(`[data-testid="schedule-row"][data-name="${s.name}"]`)).toHaveCount(0);
  expect((await page.request.get(`/api/schedules/${s.id}`)).status()).toBe(404);
});
