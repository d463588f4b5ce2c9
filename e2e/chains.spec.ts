// Run-after chains as an operator builds them: create an upstream A and a downstream B that runs after A through the
// schedule form, trigger A by hand, and see B's next occurrence wait for it and then run. The run pages link the two
// occurrences both ways, and the timeline draws the edge between their marks. Real console, worker and Postgres.
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const A = `e2e-chain-up-${suffix}`;
const B = `e2e-chain-down-${suffix}`;

test("B runs after A: created in the form, fed by a trigger of A, linked on both run pages and drawn on the timeline", async ({ page }) => {
  test.setTimeout(240_000);
  // A: a daily schedule (its own fires are far off); it runs now only when triggered.
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(A);
  await page.getByLabel("Handler").selectOption("demo.noop");
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  const aId = page.url().split("/").at(-1)!;

  // B: every 10 s, each occurrence after A's latest occurrence at or before it has succeeded.
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(B);
  await page.getByLabel("Handler").selectOption("demo.noop");
  await page.getByRole("button", { name: "Every 10 s" }).click();
  const after = page.getByTestId("run-after");
  await after.getByTestId("add-run-after").click();
  await after.getByLabel("Run after schedule 1").fill(A);
  await after.getByLabel("Run after 1 condition").selectOption("succeeded");
  await after.getByLabel("Run after 1 mapping").selectOption("latest_before");
  await after.getByTestId("field-waitDeadlineSeconds").getByRole("textbox").fill("600");
  await after.screenshot({ path: "artifacts/chains-form.png" });
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  const bId = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("schedule-runs-after")).toContainText(`Runs after ${A} (succeeded; latest at or before)`);

  // B's occurrences wait: A has no occurrence yet.
  await expect
    .poll(async () => {
      const r = await (await page.request.get(`/api/runs?scheduleId=${bId}&limit=20`)).json();
      return (r.runs as { state: string; waitReason: string | null }[]).filter((x) => x.waitReason === "upstream").length;
    })
    .toBeGreaterThan(0);

  await page.goto(`/schedules/${aId}`);
  await expect(page.getByTestId("schedule-followed-by")).toContainText(`Followed by ${B}`);
  await page.getByTestId("trigger-now").click();
  const dialog = page.getByTestId("trigger-dialog");
  await dialog.getByLabel("Reason").fill("ledger closed early");
  await page.getByTestId("confirm-trigger").click();
  await page.getByTestId("triggered-run-link").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const aRunId = page.url().split("/").at(-1)!;
  await expect(page.getByTestId("run-state").first()).toHaveText(/succeeded/, { timeout: 30_000 });

  // B's next occurrence after A's run is released and runs.
  let bRunId = "";
  await expect
    .poll(
      async () => {
        const r = await (await page.request.get(`/api/runs?scheduleId=${bId}&state=succeeded&limit=5`)).json();
        bRunId = (r.runs as { id: string }[]).at(-1)?.id ?? "";
        return bRunId;
      },
      { timeout: 60_000 },
    )
    .not.toBe("");

  // A's run page lists B's occurrence downstream; B's lists A's upstream, with the condition met.
  await page.reload();
  const downstream = page.getByTestId("run-downstream");
  await expect(downstream).toContainText(B);
  await expect(downstream.locator(`a[href="/runs/${bRunId}"]`)).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("run-chain").screenshot({ path: "artifacts/chains-upstream-run.png" });
  await downstream.locator(`a[href="/runs/${bRunId}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${bRunId}$`));
  const upstream = page.getByTestId("run-upstream");
  await expect(upstream).toContainText(A);
  await expect(upstream).toContainText("condition met");
  await expect(upstream.getByTestId("upstream-run-link")).toHaveAttribute("href", `/runs/${aRunId}`);
  await expect(page.getByTestId("run-events")).toContainText(`released: ${A} succeeded`);
  await page.screenshot({ path: "artifacts/chains-run-page.png", fullPage: true });

  // The timeline draws the edge from A's mark to B's.
  await page.goto("/timeline");
  await page.getByRole("searchbox", { name: "Schedule", exact: true }).fill(`chain-`);
  await page.getByRole("combobox", { name: "Window" }).selectOption({ label: "Last 15 min + next 5 min" });
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${A}"]`)).toHaveCount(1);
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${B}"]`)).toHaveCount(1);
  const edges = page.getByTestId("timeline-chain-edges");
  await expect(edges).toHaveAttribute("d", /^M[\d.]+ [\d.]+L[\d.]+ [\d.]+/, { timeout: 30_000 });
  await page.getByTestId("timeline-chart").screenshot({ path: "artifacts/chains-timeline.png" });

  // Deleting A while B runs after it is refused, naming B; B first, then A, leaves nothing behind.
  const aRev = (await (await page.request.get(`/api/schedules/${aId}`)).json()).schedule.revision;
  const refused = await page.request.delete(`/api/schedules/${aId}?revision=${aRev}`, { headers: sameOrigin() });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toContain(B);
  const bRev = (await (await page.request.get(`/api/schedules/${bId}`)).json()).schedule.revision;
  expect((await page.request.delete(`/api/schedules/${bId}?revision=${bRev}`, { headers: sameOrigin() })).status()).toBe(200);
  expect((await page.request.delete(`/api/schedules/${aId}?revision=${aRev}`, { headers: sameOrigin() })).status()).toBe(200);
});
