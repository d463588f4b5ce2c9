// Worker pools in the console: a team assigned a pool no live worker serves (the e2e worker runs without a pool) shows
// it on its schedule's page ("no worker in pool …" beside the handler, the pool beside the team), and a run triggered
// by hand waits with the run page saying which pool no worker serves. Assigning the pool back to none moves the
// queued job to the e2e worker, which runs it. The team, the pool and the schedule are made through the real API by
// the E2E admin. Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const POOL = `gpu-${suffix}`;
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

test("a pool without a live worker is named on the schedule and run pages; a pool change moves the waiting run", async ({ page }) => {
  test.setTimeout(120_000);
  const call = async (url: string, data: unknown, method: "post" | "put" = "post") => {
    const res = await page.request[method](url, { headers: sameOrigin(), data });
    expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
    return res.json();
  };
  const team = `pool-team-${suffix}`;
  const teamId = (await call("/api/teams", { name: team })).team.id as string;
  await call(`/api/teams/${teamId}/code-execution`, { workerPool: POOL }, "put");
  const schedule = (await call("/api/schedules", { name: `e2e-pool-job-${suffix}`, team, handler: "demo.noop", trigger: YEARLY })).schedule
    .id as string;

  await page.goto(`/schedules/${schedule}`);
  await expect(page.getByTestId("schedule-worker-pool")).toHaveText(POOL);
  await expect(page.getByTestId("handler-no-worker")).toHaveText(`no worker in pool ${POOL}`);
  await page.screenshot({ path: "artifacts/worker-pools-schedule.png", fullPage: true });

  const runId = (await call(`/api/schedules/${schedule}/trigger`, { reason: "pool e2e" })).runId as string;
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-waiting-worker")).toHaveText(`◌ waiting: no live worker of pool ${POOL} serves handler demo.noop`);
  await page.screenshot({ path: "artifacts/worker-pools-run-waiting.png", fullPage: true });

  // Back to no pool: the queued job moves to the queues the e2e worker serves, and the run ends there.
  const moved = await call(`/api/teams/${teamId}/code-execution`, { workerPool: null }, "put");
  expect(moved.movedJobs).toBe(1);
  await expect(page.getByTestId("run-waiting-worker")).toHaveCount(0, { timeout: 30_000 });
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 60_000 })
    .toBe("succeeded");
});
