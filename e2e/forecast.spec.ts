// The plan ahead on the timeline: in the "Next 6 h" window every future fire of an every-minute and an hourly
// schedule is drawn (as a forecast mark, or as the planned row the planner already wrote a few minutes ahead), a
// forecast mark's hover card says what becomes of it, a calendar excluding the next hour shows those fires as
// excluded with the calendar's reason, and the schedule page shows the same forecast.
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const MIN = 60_000;
const H = 3_600_000;

interface Api {
  t0: number;
  schedules: { id: string; name: string }[];
  runs: [number, number, ...unknown[]][];
  forecast?: { from: string; fates: string[]; reasons: string[]; mode: string; marks: [number, number, number, number, number][] };
}

async function createSchedule(page: Page, name: string, cron: string): Promise<{ id: string; revision: number }> {
  const res = await page.request.post("/api/schedules", {
    data: { name, handler: "demo.noop", trigger: { kind: "cron", cron, timezone: "UTC" } },
    headers: sameOrigin(),
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule as { id: string; revision: number };
}

/** The lane's forecast fates as the chart drew them (its data attributes). */
async function laneFates(page: Page, name: string): Promise<Record<string, number>> {
  const lane = page.locator(`[data-testid="timeline-lane"][data-schedule="${name}"]`);
  return JSON.parse((await lane.getAttribute("data-forecast-fates")) ?? "{}") as Record<string, number>;
}

/** Every fire instant of a lane from the forecast's start to `to`: forecast marks and the rows that replaced theirs. */
function laneFires(api: Api, lane: number): number[] {
  const from = Date.parse(api.forecast!.from);
  const marks = api.forecast!.marks.filter((m) => m[0] === lane).map((m) => api.t0 + m[1]);
  const rows = api.runs.filter((r) => r[0] === lane && api.t0 + r[1] > from).map((r) => api.t0 + r[1]);
  return [...new Set([...marks, ...rows])].sort((a, b) => a - b);
}

/** Points the mouse at a lane's marker band at instant `t` (the hit area is the plot). */
async function hoverAt(page: Page, laneIndex: number, lanes: number, t: number): Promise<void> {
  const summary = page.getByTestId("timeline-summary");
  const from = Number(await summary.getAttribute("data-from"));
  const to = Number(await summary.getAttribute("data-to"));
  const box = (await page.getByTestId("timeline-hit-area").boundingBox())!;
  const laneH = box.height / lanes;
  await page.mouse.move(box.x + ((t - from) / (to - from)) * box.width, box.y + laneIndex * laneH + laneH * 0.25);
}

test("next 6 h: every future fire of an every-minute and an hourly schedule is drawn, hollow, with why it runs", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `e2e-fc-${Date.now().toString(36)}`;
  await createSchedule(page, `${prefix}-a-minutely`, "* * * * *");
  await createSchedule(page, `${prefix}-b-hourly`, "0 * * * *");

  await page.goto(`/timeline?window=next-6h&q=${prefix}`);
  await expect(page.getByRole("combobox", { name: "Window" }).locator("option:checked")).toHaveText("Next 6 h");
  const minutely = page.locator(`[data-testid="timeline-lane"][data-schedule="${prefix}-a-minutely"]`);
  await expect(minutely).toHaveCount(1);
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${prefix}-b-hourly"]`)).toHaveCount(1);
  await expect(page.locator('[data-mark="fc:run"]')).toHaveCount(1);

  // The chart drew every minute of the six hours as a forecast mark, bar the few the planner already wrote as rows.
  const summary = page.getByTestId("timeline-summary");
  const from = Number(await summary.getAttribute("data-from"));
  const to = Number(await summary.getAttribute("data-to"));
  expect(to - from).toBe(6 * H);
  const drawn = await laneFates(page, `${prefix}-a-minutely`);
  const minutes = Math.floor(to / MIN) - Math.floor(from / MIN);
  expect(drawn.run).toBeGreaterThanOrEqual(minutes - 5);
  expect(drawn.run).toBeLessThanOrEqual(minutes);
  const hourly = await laneFates(page, `${prefix}-b-hourly`);
  expect(hourly.run).toBeGreaterThanOrEqual(5);
  expect(hourly.run).toBeLessThanOrEqual(6);

  // Exactly: the same window's answer holds every fire instant, as a mark or as the row that replaced it.
  const api = (await (
    await page.request.get(`/api/timeline?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&q=${prefix}&width=1200`)
  ).json()) as Api;
  const fcFrom = Date.parse(api.forecast!.from);
  const everyMinute: number[] = [];
  for (let t = Math.floor(fcFrom / MIN) * MIN + MIN; t <= to; t += MIN) everyMinute.push(t);
  expect(laneFires(api, 0)).toEqual(everyMinute);
  expect(laneFires(api, 1)).toEqual(everyMinute.filter((t) => t % H === 0));

  // A forecast mark's card: it will run, when, and that no run exists yet.
  await hoverAt(page, 1, 2, Math.ceil((from + 2 * H) / H) * H);
  const card = page.getByTestId("timeline-tooltip");
  await expect(card).toHaveAttribute("data-forecast", "run");
  await expect(card).toContainText("will run");
  await expect(card).toContainText("no run exists yet");
  await page.screenshot({ path: "artifacts/screenshots/forecast-next-6h.png", fullPage: true });
  await page.mouse.move(0, 0);
  await expect(card).toHaveCount(0);
  await page.getByTestId("timeline-view").screenshot({ path: "docs/images/timeline-forecast.png" });

  // The schedule page shows the same forecast for that schedule alone.
  const hourlyId = api.schedules[1]!.id;
  await page.goto(`/schedules/${hourlyId}`);
  const section = page.getByTestId("schedule-forecast");
  await expect(section.getByRole("heading", { name: "Timeline and forecast" })).toBeVisible();
  await expect(section.locator('[data-testid="timeline-lane"]')).toHaveCount(1);
  await expect
    .poll(async () => Number(await section.locator('[data-testid="timeline-lane"]').getAttribute("data-forecast")))
    .toBeGreaterThanOrEqual(23);
  await section.screenshot({ path: "artifacts/screenshots/forecast-schedule-page.png" });
});

test("a calendar excluding the next hour shows those fires as excluded, with the calendar's reason", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `e2e-fc-cal-${Date.now().toString(36)}`;
  // Every 10 minutes: 36 fires in six hours, drawn one by one (an every-minute lane would be summarised per bucket).
  const schedule = await createSchedule(page, `${prefix}-ten-minutely`, "*/10 * * * *");
  const now = Date.parse((await (await page.request.get("/api/timeline?laneLimit=1")).json()).now as string);
  const start = Math.ceil(now / H) * H + (Math.ceil(now / H) * H - now < 10 * MIN ? H : 0);
  const calendar = `${prefix} freeze`;
  const created = await page.request.post("/api/calendars", {
    data: {
      name: calendar,
      timezone: "UTC",
      ranges: [{ start: new Date(start).toISOString(), end: new Date(start + H).toISOString(), summary: "change freeze" }],
    },
    headers: sameOrigin(),
  });
  expect(created.status(), await created.text()).toBe(200);
  const linked = await page.request.patch(`/api/schedules/${schedule.id}`, {
    data: { calendars: [{ calendar, policy: "skip" }], revision: schedule.revision },
    headers: sameOrigin(),
  });
  expect(linked.status(), await linked.text()).toBe(200);

  await page.goto(`/timeline?window=next-6h&q=${prefix}`);
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${prefix}-ten-minutely"]`)).toHaveCount(1);
  // The hour [start, start + 1 h) holds six fires: start, +10 … +50 min.
  await expect.poll(async () => (await laneFates(page, `${prefix}-ten-minutely`)).excluded).toBe(6);
  await expect(page.locator('[data-mark="fc:excluded"]')).toHaveCount(1);
  await hoverAt(page, 0, 1, start + 30 * MIN);
  const card = page.getByTestId("timeline-tooltip");
  await expect(card).toHaveAttribute("data-forecast", "excluded");
  await expect(card.getByTestId("forecast-reason")).toContainText(calendar);
  await page.screenshot({ path: "artifacts/screenshots/forecast-calendar-excluded.png", fullPage: true });
  // The README's picture: the plan ahead with fires that will and will not run, one card open (it hangs below the
  // chart, so the picture reaches down to the card's bottom).
  const view = (await page.getByTestId("timeline-view").boundingBox())!;
  const open = (await card.boundingBox())!;
  const bottom = Math.max(view.y + view.height, open.y + open.height) + 8;
  await page.screenshot({
    path: "docs/images/timeline-forecast.png",
    clip: { x: view.x, y: view.y, width: view.width, height: bottom - view.y },
  });
});

test("a backfill's dry run draws the runs it would enqueue on the schedule's timeline before confirming", async ({ page }) => {
  test.setTimeout(120_000);
  const prefix = `e2e-fc-bf-${Date.now().toString(36)}`;
  const schedule = await createSchedule(page, `${prefix}-half-hourly`, "*/30 * * * *");
  await page.goto(`/schedules/${schedule.id}`);
  await page.getByTestId("backfill-schedule").click();
  const dialog = page.getByTestId("backfill-dialog");
  await expect(dialog).toBeVisible();
  // Two hours 59 minutes ending a minute ago, typed as the operator would (local datetime inputs): always six
  // half-hourly fires.
  const [from, to] = await page.evaluate(() => {
    const local = (d: Date) => {
      const p = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:00`;
    };
    const end = new Date();
    end.setSeconds(0, 0);
    end.setMinutes(end.getMinutes() - 1);
    return [local(new Date(end.getTime() - 3 * 3_600_000 + 60_000)), local(end)];
  });
  await dialog.getByLabel("From (your local time)").fill(from!);
  await dialog.getByLabel("To (your local time)").fill(to!);
  await dialog.getByTestId("preview-backfill").click();
  await expect(dialog.getByTestId("backfill-preview")).toContainText("6 run(s) will be enqueued (6 fire(s) in the range");
  const drawn = dialog.getByTestId("dry-run-timeline");
  await expect(drawn).toHaveAttribute("data-proposed", "6");
  // The six proposed runs on the lane (beside it, right of the now-line, the schedule's own forecast).
  const fates = JSON.parse((await drawn.locator('[data-testid="timeline-lane"]').getAttribute("data-forecast-fates"))!) as Record<
    string,
    number
  >;
  expect(fates.proposed).toBe(6);
  await expect(drawn.locator('[data-mark="fc:proposed"]')).toHaveCount(1);
  await dialog.screenshot({ path: "artifacts/screenshots/forecast-backfill-dry-run.png" });
  // Nothing was written by the preview.
  const runs = (await (await page.request.get(`/api/runs?scheduleId=${schedule.id}`)).json()) as { runs: { kind: string }[] };
  expect(runs.runs.filter((r) => r.kind === "backfill")).toHaveLength(0);
});
