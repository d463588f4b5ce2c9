// Live updates through the change stream (GET /api/changes): an open runs page shows a run finishing within a
// couple of seconds without polling for it (while the stream is live the page's own poll is a 60 s safety net),
// and when the stream is lost the page polls again and still shows new runs. Real console, worker and Postgres.
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

async function createSchedule(page: Page, prefix: string): Promise<string> {
  const res = await page.request.post("/api/schedules", {
    data: { name: `${prefix}-${Date.now().toString(36)}`, handler: "demo.noop", trigger: YEARLY },
    headers: sameOrigin(),
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule.id;
}

// Through the page's own fetch: the browser retries a request whose idle keep-alive connection the server had just
// closed, which Playwright's request context reports as ECONNRESET (seen on a loaded machine).
async function trigger(page: Page, scheduleId: string): Promise<string> {
  const res = await page.evaluate(async (id) => {
    const r = await fetch(`/api/schedules/${id}/trigger`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "e2e live" }),
    });
    return { status: r.status, text: await r.text() };
  }, scheduleId);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text).runId as string;
}

/** How long after the run finished (by the database's clock) the page showed it finished. */
async function shownFinishedAfterMs(page: Page, runId: string): Promise<number> {
  const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  await expect(row).toHaveAttribute("data-state", "succeeded", { timeout: 8_000 });
  const shownAt = Date.now();
  const run = await (await page.request.get(`/api/runs/${runId}`)).json();
  // The database and this test share the machine's clock.
  return shownAt - Date.parse(run.run.timings.finishedAt);
}

test("a run triggered through the API appears finished on the open runs page within ~2 s, pushed by the change stream", async ({
  page,
}) => {
  const scheduleId = await createSchedule(page, "e2e-live");
  await page.goto(`/runs?scheduleId=${scheduleId}`);
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "stream");
  // Counted from here: while the stream is live the list itself is refetched only when something changed.
  let listFetches = 0;
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/runs") listFetches++;
  });
  const runId = await trigger(page, scheduleId);
  const lag = await shownFinishedAfterMs(page, runId);
  test.info().annotations.push({ type: "shown after finish", description: `${lag} ms` });
  expect(lag).toBeLessThan(3_000);
  expect(listFetches).toBeGreaterThan(0);
});

test("when the change stream is lost and cannot be reopened, the page polls again; it goes back to the stream when it can", async ({
  page,
}) => {
  const scheduleId = await createSchedule(page, "e2e-live-fallback");
  await page.goto(`/runs?scheduleId=${scheduleId}`);
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "stream");

  // The console refuses new streams (as it does while the database is down: 503), and the open one is cut.
  await page.route("**/api/changes", (route) =>
    route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "database_unavailable", message: "e2e" } }),
    }),
  );
  // window.stop() aborts the page's open requests, the stream among them.
  await page.evaluate(() => window.stop());
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "polling");

  const runId = await trigger(page, scheduleId);
  const lag = await shownFinishedAfterMs(page, runId);
  test.info().annotations.push({ type: "shown after finish (polling)", description: `${lag} ms` });
  expect(lag).toBeLessThan(4_000);

  // Streams are accepted again: the page reopens one by itself (backing off 2 s, 4 s, …).
  await page.unroute("**/api/changes");
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "stream", { timeout: 20_000 });
});

/** Makes the page hidden or visible as a browser does when its tab is switched away from or back to. */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (h ? "hidden" : "visible") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

test("a hidden tab closes its change stream and does not poll; shown again, it reopens the stream and shows what changed", async ({
  page,
}) => {
  // Every EventSource the page opens, so the test can see whether the stream is still open.
  await page.addInitScript(() => {
    const Original = window.EventSource;
    const opened: EventSource[] = [];
    (window as unknown as { __streams: EventSource[] }).__streams = opened;
    window.EventSource = class extends Original {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        opened.push(this);
      }
    } as typeof EventSource;
  });
  const streams = () =>
    page.evaluate(() => {
      const all = (window as unknown as { __streams: EventSource[] }).__streams;
      return { opened: all.length, open: all.filter((s) => s.readyState !== EventSource.CLOSED).length };
    });

  const scheduleId = await createSchedule(page, "e2e-hidden");
  await page.goto(`/runs?scheduleId=${scheduleId}`);
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "stream");
  const before = await trigger(page, scheduleId);
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${before}"]`)).toHaveAttribute("data-state", "succeeded");
  expect(await streams()).toEqual({ opened: 1, open: 1 });

  const apiCalls: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/api/")) apiCalls.push(`${Date.now()} ${path}`);
  });

  await setHidden(page, true);
  await expect.poll(streams).toEqual({ opened: 1, open: 0 });
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "polling");
  // A run finishes while the tab is hidden (through the API, not the page).
  const res = await page.request.post(`/api/schedules/${scheduleId}/trigger`, { data: { reason: "e2e hidden" }, headers: sameOrigin() });
  expect(res.status(), await res.text()).toBe(200);
  const whileHidden = (await res.json()).runId as string;
  await expect.poll(async () => (await (await page.request.get(`/api/runs/${whileHidden}`)).json()).run.state).toBe("succeeded");
  // An absence cannot be awaited: it is watched for three of the 2 s intervals a visible tab without its stream
  // polls at (the run above already finished, so a poll would have fetched it): not one request, no stream reopened.
  await page.waitForTimeout(6_000);
  expect(apiCalls).toEqual([]);
  expect(await streams()).toEqual({ opened: 1, open: 0 });
  const row = page.locator(`[data-testid="run-row"][data-run-id="${whileHidden}"]`);
  await expect(row).toHaveCount(0);

  // Shown again: a new stream, live again, and the run that finished meanwhile is shown without a reload.
  await setHidden(page, false);
  await expect.poll(streams).toEqual({ opened: 2, open: 1 });
  await expect(page.locator("html")).toHaveAttribute("data-live-updates", "stream");
  await expect(row).toHaveAttribute("data-state", "succeeded", { timeout: 5_000 });
  expect(apiCalls.some((c) => c.endsWith(" /api/runs"))).toBe(true);
  await page.screenshot({ path: "artifacts/e2e-hidden-tab-shown-again.png" });
});

test("a tab whose session is ended elsewhere leaves the console within seconds (its change stream is closed, not kept for minutes)", async ({
  page,
  browser,
  baseURL,
}) => {
  const email = `e2e-revoked-${Date.now().toString(36)}@vigil.test`;
  const password = "revoked-session-password-123";
  const made = await page.request.post("/api/users", { headers: sameOrigin(), data: { email, password, role: "viewer" } });
  expect(made.status(), await made.text()).toBe(200);
  const userId = (await made.json()).user.id as string;

  // The viewer signs in through the real login API in a browser of their own and opens the runs page.
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  try {
    const login = await context.request.post("/api/auth/login", { headers: sameOrigin(), data: { email, password } });
    expect(login.status(), await login.text()).toBe(200);
    const viewer = await context.newPage();
    const streamEnded = new Promise<number>((resolve) => {
      viewer.on("requestfinished", (r) => {
        if (new URL(r.url()).pathname === "/api/changes") resolve(Date.now());
      });
      viewer.on("requestfailed", (r) => {
        if (new URL(r.url()).pathname === "/api/changes") resolve(Date.now());
      });
    });
    await viewer.goto("/runs");
    await expect(viewer.locator("html")).toHaveAttribute("data-live-updates", "stream");

    // An admin signs the viewer out everywhere.
    const endedAt = Date.now();
    const ended = await page.request.delete(`/api/users/${userId}/sessions`, { headers: sameOrigin() });
    expect(ended.status(), await ended.text()).toBe(200);
    expect(await streamEnded).toBeLessThan(endedAt + 3_000);
    // Its next stream and reads are refused, and the tab goes to the sign-in page.
    await expect(viewer).toHaveURL(/\/login/, { timeout: 10_000 });
    await viewer.screenshot({ path: "artifacts/e2e-revoked-session-login.png" });
  } finally {
    await context.close();
  }
});
