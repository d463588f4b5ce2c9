// Operator power tools through the console: trigger now with a reason and a one-run payload override, then
// re-run the occurrence from its run page and from the runs list — previewed, with the ctx.once effects that
// will not repeat — and see a succeeded run offer only "run again as a new occurrence".
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

async function createViaApi(page: Page, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await page.request.post("/api/schedules", { headers: sameOrigin(), data: body });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).schedule;
}

test("trigger now with a reason and a payload override, then re-run the hollow occurrence: its posting does not repeat", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const a = unique("e2e-from");
  const b = unique("e2e-to");
  // ledger.post reports 1 record; expecting 2 makes each run hollow after its posting was made.
  const s = await createViaApi(page, {
    name: unique("e2e-rerun"),
    handler: "ledger.post",
    payload: { from: a, to: b, amount: 5 },
    trigger: YEARLY,
    expectRecordsMin: 2,
  });

  await page.goto(`/schedules/${s.id}`);
  await page.getByTestId("trigger-now").click();
  const dialog = page.getByTestId("trigger-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Reason")).toBeFocused();
  // No reason: refused in place, nothing triggered.
  await page.getByTestId("confirm-trigger").click();
  await expect(dialog).toContainText("Say why");
  await dialog.getByLabel("Reason").fill("finance asked for today's settlement");
  await page.getByTestId("trigger-override").check();
  const payload = dialog.getByLabel("Payload (JSON)");
  await expect(payload).toHaveValue(/"amount": 5/);
  await payload.fill(JSON.stringify({ from: a, to: b, amount: 0 }));
  await expect(dialog.getByTestId("payload-problems")).toContainText("amount");
  await expect(page.getByTestId("confirm-trigger")).toBeDisabled();
  await payload.fill(JSON.stringify({ from: a, to: b, amount: 7 }));
  await expect(dialog.getByTestId("field-payload")).toContainText("fits the handler's schema");
  await page.screenshot({ path: "artifacts/screenshots/trigger-dialog.png", fullPage: true });
  await page.getByTestId("confirm-trigger").click();
  await expect(page.getByTestId("action-notice")).toContainText("Triggered", { timeout: 30_000 });
  await page.getByTestId("triggered-run-link").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split("/").at(-1)!;

  const state = page.getByTestId("run-state").first();
  await expect(state).toHaveAttribute("data-state", "hollow", { timeout: 60_000 });
  const trace = page.getByTestId("run-trace");
  await expect(trace).toContainText('"amount": 7');
  await expect(trace).toContainText("finance asked for today's settlement");

  // Re-run from the run page: the preview says what will (not) happen.
  await page.getByTestId("rerun-run").click();
  const rerun = page.getByTestId("rerun-dialog");
  await expect(rerun.getByTestId("rerun-attempt")).toHaveText("attempt 2");
  await expect(rerun.getByTestId("rerun-once-effects")).toContainText(
    "1 ctx.once effect(s) already recorded for this occurrence: those effects will not repeat",
  );
  await page.getByTestId("confirm-rerun").click();
  await expect(rerun).toContainText("Say why");
  await rerun.getByLabel("Reason").fill("check the report picks it up");
  await page.screenshot({ path: "artifacts/screenshots/rerun-preview.png", fullPage: true });
  await page.getByTestId("confirm-rerun").click();
  await expect(rerun).toBeHidden();

  await expect(page.getByTestId("run-attempts").locator("tbody tr")).toHaveCount(2, { timeout: 60_000 });
  await expect(state).toHaveAttribute("data-state", "hollow", { timeout: 60_000 });
  await expect(page.getByTestId("rerun-count")).toContainText("re-run ×1");
  const ev = page.locator('[data-testid="run-event"][data-type="rerun_requested"]');
  await expect(ev).toHaveCount(1);
  await expect(ev).toContainText("check the report picks it up");
  await expect(trace).toContainText("posting already made by an earlier attempt; nothing moved");
  await page.screenshot({ path: "artifacts/screenshots/rerun-trace.png", fullPage: true });

  // Re-run from the runs list: attempt 3 of the same occurrence.
  await page.goto(`/runs?scheduleId=${s.id}`);
  const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  await expect(row).toContainText("re-run ×1");
  await row.getByTestId("rerun-run").click();
  await expect(rerun.getByTestId("rerun-attempt")).toHaveText("attempt 3");
  await rerun.getByLabel("Reason").fill("once more from the list");
  await page.getByTestId("confirm-rerun").click();
  await expect(row).toContainText("3/3", { timeout: 60_000 });
  await expect(row).toHaveAttribute("data-state", "hollow", { timeout: 60_000 });
  await page.screenshot({ path: "artifacts/screenshots/rerun-list.png", fullPage: true });

  // The money moved once over three attempts: one posting for the occurrence (the audit has each re-run).
  const audit = await (await page.request.get(`/api/audit?target=run:${runId}`)).json();
  expect(audit.events.filter((e: { action: string }) => e.action === "run.rerun")).toHaveLength(2);
});

test("a succeeded run cannot be re-run; it offers 'run again as a new occurrence' with a new key", async ({ page }) => {
  test.setTimeout(120_000);
  const s = await createViaApi(page, { name: unique("e2e-again"), handler: "demo.noop", trigger: YEARLY });
  const trig = await page.request.post(`/api/schedules/${s.id}/trigger`, { headers: sameOrigin(), data: { reason: "e2e" } });
  const { runId } = await trig.json();
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");
  const refused = await page.request.post(`/api/runs/${runId}/rerun`, { headers: sameOrigin(), data: { reason: "by accident" } });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.code).toBe("run_succeeded");

  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("rerun-run")).toHaveCount(0);
  await page.getByTestId("run-again-new").click();
  const dialog = page.getByTestId("trigger-dialog");
  await expect(dialog).toContainText("NEW occurrence with a new idempotency key");
  await dialog.getByLabel("Reason").fill("rerun the whole job deliberately");
  await page.screenshot({ path: "artifacts/screenshots/run-again-new.png", fullPage: true });
  await page.getByTestId("confirm-trigger").click();
  await page.getByTestId("triggered-run-link").click();
  // We start on a /runs/<id> page: wait for the navigation to the new run, not for a URL that already matches.
  await expect(page).not.toHaveURL(new RegExp(runId));
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("idempotency-key")).not.toHaveText(new RegExp(runId));
});

test("bulk actions on the filtered runs list: cancel a schedule's active runs, re-run a range's failed runs, each with a dry-run count", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const hang = await createViaApi(page, {
    name: unique("e2e-bulk-hang"),
    handler: "demo.hang",
    trigger: YEARLY,
    overlapPolicy: "allow",
    timeoutSeconds: 600,
    graceSeconds: 2,
  });
  for (let i = 0; i < 2; i++)
    expect(
      (await page.request.post(`/api/schedules/${hang.id}/trigger`, { headers: sameOrigin(), data: { reason: `e2e ${i}` } })).status(),
    ).toBe(200);
  await page.goto(`/runs?scheduleId=${hang.id}`);
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(2);
  await expect(page.locator('[data-testid="run-row"][data-state="running"]')).toHaveCount(2, { timeout: 30_000 });
  await page.getByTestId("bulk-cancel").click();
  const dialog = page.getByTestId("bulk-dialog");
  await expect(dialog.getByTestId("bulk-count")).toHaveText("2");
  await dialog.getByLabel("Reason").fill("runaway jobs, e2e");
  await page.getByTestId("confirm-bulk").click();
  await expect(dialog.getByTestId("bulk-result")).toContainText("2 of 2 run(s) cancelled");
  await page.getByTestId("bulk-done").click();
  await expect(page.locator('[data-testid="run-row"][data-state="cancelled"]')).toHaveCount(2, { timeout: 30_000 });

  const flaky = await createViaApi(page, {
    name: unique("e2e-bulk-fail"),
    handler: "demo.flaky",
    payload: { p: 1 },
    trigger: YEARLY,
    overlapPolicy: "allow",
  });
  const from = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < 3; i++)
    expect(
      (await page.request.post(`/api/schedules/${flaky.id}/trigger`, { headers: sameOrigin(), data: { reason: `e2e ${i}` } })).status(),
    ).toBe(200);
  const to = new Date(Date.now() + 60_000).toISOString();
  await page.goto(`/runs?scheduleId=${flaky.id}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  await expect(page.locator('[data-testid="run-row"][data-state="failed"]')).toHaveCount(3, { timeout: 30_000 });
  await page.getByTestId("bulk-rerun").click();
  await expect(dialog.getByTestId("bulk-count")).toHaveText("3");
  await dialog.getByLabel("Reason").fill("flaky upstream, try again");
  await page.screenshot({ path: "artifacts/screenshots/bulk-rerun-preview.png", fullPage: true });
  await page.getByTestId("confirm-bulk").click();
  await expect(dialog.getByTestId("bulk-result")).toContainText("3 of 3 run(s) re-run");
  await page.getByTestId("bulk-done").click();
  // Each ran again as attempt 2 of its occurrence (and failed again: p = 1).
  await expect(page.locator('[data-testid="run-row"][data-state="failed"]').filter({ hasText: "2/2" })).toHaveCount(3, { timeout: 60_000 });
  await page.screenshot({ path: "artifacts/screenshots/bulk-rerun-done.png", fullPage: true });
});
