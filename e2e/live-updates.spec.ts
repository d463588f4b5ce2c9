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
