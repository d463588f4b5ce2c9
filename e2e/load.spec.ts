// The Load page driven as an operator would: 30 hourly schedules at minute 0 in a group that runs 2 at once show as a
// burst at every top of the hour, marked on the curve with how late the last run should start (from measured runs);
// a spread is previewed (before vs after) and applied with confirmation, and the curve flattens.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);

test("Load: a group's burst is marked with its expected lateness, a spread is previewed and applied", async ({ page }) => {
  test.setTimeout(180_000);
  const group = `load-${suffix}`;
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await page.request.post("/api/schedules", {
      headers: sameOrigin(),
      data: {
        name: `e2e-load-${suffix}-${String(i).padStart(2, "0")}`,
        handler: "demo.sleep",
        payload: { ms: 1500, records: 1 },
        trigger: { kind: "cron", cron: "0 * * * *", timezone: "UTC" },
        overlapPolicy: "allow",
        concurrencyGroup: group,
        concurrencyLimit: 2,
      },
    });
    expect(res.status(), await res.text()).toBe(200);
    ids.push((await res.json()).schedule.id as string);
  }
  // A few measured runs: their median duration is what the burst's lateness is estimated from.
  const runs: string[] = [];
  for (const id of ids.slice(0, 4)) {
    const res = await page.request.post(`/api/schedules/${id}/trigger`, { headers: sameOrigin(), data: { reason: "e2e load: measure" } });
    expect(res.status(), await res.text()).toBe(200);
    runs.push((await res.json()).runId as string);
  }
  for (const run of runs)
    await expect
      .poll(async () => (await (await page.request.get(`/api/runs/${run}`)).json()).run.state, { timeout: 60_000 })
      .toBe("succeeded");

  await page.goto("/load");
  await expect(page.getByRole("link", { name: "Load" })).toHaveAttribute("aria-current", "page");
  // The first answer plans every schedule (later ones reuse the plans): generous on a busy machine.
  await expect(page.getByTestId("load-chart")).toBeVisible({ timeout: 60_000 });
  await page.getByTestId("load-scope").selectOption("group");
  await page.getByTestId("load-key").selectOption(group);
  await expect(page.getByTestId("load-summary")).toContainText("30 schedules, 720 runs due", { timeout: 30_000 });
  await expect(page.getByTestId("load-summary")).toContainText("Busiest minute: 30 due");
  // 30 due against 2 at a time, ~1.5 s each: the last starts 14 × ~1.5 s late.
  const groupRow = page.getByTestId("load-groups").locator("tr", { hasText: group });
  await expect(groupRow).toContainText(/late/);
  await expect(page.getByTestId("load-bursts").locator("tr").nth(1)).toContainText("30 / 2");
  const markers = page.getByTestId("load-chart").locator(".recharts-reference-dot");
  await expect(markers.first()).toBeVisible();
  expect(await markers.count()).toBeGreaterThan(5);
  await page.screenshot({ path: "artifacts/load-forecast.png", fullPage: true });

  await page.getByTestId("spread-preview").click();
  const summary = page.getByTestId("spread-summary");
  await expect(summary).toContainText("Peak 30 →", { timeout: 30_000 });
  // A schedule whose id hashes to minute 0 already is where the spread would put it: it stays.
  await expect(summary).toContainText(/\d+ schedules? would move, \d+ stays?\./);
  const [, move, stay] = /(\d+) schedules? would move, (\d+) stay/.exec((await summary.textContent()) ?? "")!;
  expect(Number(move) + Number(stay)).toBe(30);
  expect(Number(move)).toBeGreaterThan(20);
  await expect(page.getByTestId("spread-moves")).toContainText("0 * * * * →");
  await page.getByTestId("spread-panel").screenshot({ path: "artifacts/load-spread-preview.png" });
  const peakAfter = Number(/Peak 30 → (\d+)/.exec((await summary.textContent()) ?? "")?.[1]);
  expect(peakAfter).toBeLessThan(10);

  await page.getByTestId("spread-apply").click();
  await expect(page.getByTestId("spread-confirm")).toBeVisible();
  await page.getByTestId("spread-confirm-button").click();
  await expect(page.getByTestId("spread-done")).toContainText(`${move} schedules moved`, { timeout: 30_000 });
  await expect(page.getByTestId("load-summary")).toContainText(`Busiest minute: ${peakAfter} due`, { timeout: 30_000 });
  await page.screenshot({ path: "artifacts/load-after-spread.png", fullPage: true });

  const audit = await page.request.get(`/api/audit?action=schedules.spread`);
  expect(audit.status()).toBe(200);
  expect(JSON.stringify(await audit.json())).toContain(group);
});
