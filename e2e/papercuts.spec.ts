// A newcomer's first hour, the small things: the icon, the header at laptop widths with alerts showing, a cancelled
// run shown as cancelled (with only the cancel stages its handler can have), and the timeline's first paint.
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;
// Fires once a year: the only runs are the ones a test triggers.
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

async function createSchedule(page: Page, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await page.request.post("/api/schedules", { data: body, headers: sameOrigin() });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule;
}

async function trigger(page: Page, scheduleId: string): Promise<string> {
  const res = await page.request.post(`/api/schedules/${scheduleId}/trigger`, { data: { reason: "e2e papercuts" }, headers: sameOrigin() });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).runId;
}

const runState = async (page: Page, runId: string) => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state as string;

test("the console has an icon: /favicon.ico answers 200 with an icon, signed in or not", async ({ page, browser, baseURL }) => {
  const signedIn = await page.request.get("/favicon.ico");
  expect(signedIn.status()).toBe(200);
  expect(signedIn.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  const anonymous = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  try {
    const res = await anonymous.request.get("/favicon.ico", { maxRedirects: 0 });
    expect(res.status()).toBe(200);
  } finally {
    await anonymous.close();
  }
});

test("the header keeps to one row at 1,024 and 1,440 px with alerts and attention pills showing", async ({ page }) => {
  test.setTimeout(120_000);
  // A run that ends hollow opens an alert (the badge) and counts in the last hour (an attention pill); one that fails adds another pill.
  const hollow = await createSchedule(page, {
    name: unique("e2e-header-hollow"),
    handler: "demo.sleep",
    payload: { ms: 10, records: 0 },
    trigger: YEARLY,
    expectRecordsMin: 1,
  });
  const hollowRun = await trigger(page, hollow.id);
  const flaky = await createSchedule(page, {
    name: unique("e2e-header-fail"),
    handler: "demo.flaky",
    payload: { p: 1 },
    trigger: YEARLY,
    retryMaxAttempts: 1,
  });
  await trigger(page, flaky.id);
  await expect.poll(() => runState(page, hollowRun), { timeout: 30_000 }).toBe("hollow");

  for (const width of [1024, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/schedules");
    await expect(page.getByTestId("alerts-badge")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("attention")).toHaveAttribute("data-state", "alert", { timeout: 30_000 });
    await expect(page.getByTestId("user-menu-label")).toBeVisible();
    const rows = await page.locator("header.topbar").evaluate((header) => {
      const items = [...header.children].filter((c) => c.getBoundingClientRect().width > 0);
      const tops = items.map((c) => c.getBoundingClientRect().top);
      const bottoms = items.map((c) => c.getBoundingClientRect().bottom);
      const tallest = Math.max(...items.map((c) => c.getBoundingClientRect().height));
      return {
        spread: Math.max(...tops) - Math.min(...tops),
        height: header.getBoundingClientRect().height,
        tallest,
        bottom: Math.max(...bottoms),
      };
    });
    await page.screenshot({ path: `artifacts/screenshots/header-${width}-alerts.png` });
    // One row: every item starts on the same line, and the header is one item tall plus its padding (20 px).
    expect(rows.spread, JSON.stringify(rows)).toBeLessThan(12);
    expect(rows.height, JSON.stringify(rows)).toBeLessThanOrEqual(rows.tallest + 24);
  }

  // At 1,024 px the account controls are one drop-down: Admin and Sign out are a click away.
  await page.setViewportSize({ width: 1024, height: 800 });
  await page.getByTestId("user-menu").locator("summary").first().click();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(page.getByTestId("user-menu").getByRole("link", { name: "Admin" })).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/header-1024-account-menu.png" });
});

test("a cancelled run is shown as cancelled, not as an error, and a thread handler's checklist has no process-group steps", async ({
  page,
}) => {
  test.setTimeout(120_000);
  // demo.hang ignores its abort: it is killed after the grace, which leaves time to look at the cancel under way.
  const s = await createSchedule(page, {
    name: unique("e2e-cancel-shown"),
    handler: "demo.hang",
    trigger: YEARLY,
    timeoutSeconds: 600,
    graceSeconds: 15,
  });
  const runId = await trigger(page, s.id);
  await expect.poll(() => runState(page, runId), { timeout: 30_000 }).toBe("running");
  const cancel = await page.request.post(`/api/runs/${runId}/cancel`, { data: { reason: "e2e: not needed" }, headers: sameOrigin() });
  expect(cancel.status(), await cancel.text()).toBeLessThan(300);

  await page.goto(`/runs/${runId}`);
  const stages = page.getByTestId("cancel-stages");
  await expect(stages).toContainText("in progress");
  await expect(stages.locator('[data-stage="abort_sent"]')).toBeVisible();
  await expect(stages.locator('[data-stage="sigterm_sent"]')).toHaveCount(0);
  await expect(stages.locator('[data-stage="sigkill_sent"]')).toHaveCount(0);
  await expect(stages).not.toContainText("process group");
  await page.screenshot({ path: "artifacts/screenshots/cancel-in-progress-thread.png", fullPage: true });

  await expect(page.getByTestId("run-state").first()).toHaveAttribute("data-state", "cancelled", { timeout: 60_000 });
  await expect(stages).toContainText("Cancel — done");
  await expect(page.locator(".error-card")).toHaveCount(0);
  await expect(page.getByRole("heading", { name: /Error/ })).toHaveCount(0);
  await expect(page.getByText("Error: cancelled")).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/run-cancelled-not-error.png", fullPage: true });
});

test("the timeline's first paint shows the data of the window its label names", async ({ page }) => {
  test.setTimeout(90_000);
  // Every frame, what the window picker says and the range of the data drawn (the summary line's data-from/to).
  await page.addInitScript(() => {
    const seen: { label: string; span: number }[] = [];
    (window as unknown as { __timelineFrames: typeof seen }).__timelineFrames = seen;
    const look = () => {
      const summary = document.querySelector('[data-testid="timeline-summary"]');
      const select = document.getElementById("tl-window") as HTMLSelectElement | null;
      if (summary && select) {
        const label = select.selectedOptions[0]?.textContent ?? "";
        const span = Number(summary.getAttribute("data-to")) - Number(summary.getAttribute("data-from"));
        const last = seen[seen.length - 1];
        if (!last || last.label !== label || last.span !== span) seen.push({ label, span });
      }
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
  const s = await createSchedule(page, {
    name: unique("e2e-first-paint"),
    handler: "demo.noop",
    trigger: { kind: "cron", cron: "*/10 * * * * *", timezone: "UTC" },
  });
  // Its first occurrences are planned: the history the window is fitted to exists.
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs?scheduleId=${s.id}`)).json()).runs?.length ?? 0, { timeout: 30_000 })
    .toBeGreaterThan(0);

  await page.goto(`/timeline?scheduleId=${s.id}`);
  await expect(page.getByRole("combobox", { name: "Window" }).locator("option:checked")).toHaveText("Last 15 min + next 5 min");
  await expect(page.getByTestId("timeline-summary")).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: "artifacts/screenshots/timeline-first-paint.png", fullPage: true });
  const frames = await page.evaluate(() => (window as unknown as { __timelineFrames: { label: string; span: number }[] }).__timelineFrames);
  const SPANS: Record<string, number> = {
    "Last 15 min + next 5 min": 20 * 60_000,
    "Last 1 h + next 15 min": 75 * 60_000,
    "Last 6 h + next 1 h": 7 * 3_600_000,
  };
  expect(frames.length).toBeGreaterThan(0);
  for (const f of frames) expect(f, JSON.stringify(frames)).toEqual({ label: f.label, span: SPANS[f.label] });
  expect(frames[0]!.label).toBe("Last 15 min + next 5 min");
});
