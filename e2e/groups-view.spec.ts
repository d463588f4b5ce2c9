// The Groups view (Workers page) driven as an operator would: a group whose runs already started gets a start-rate
// limit from the console (audited), the view counts the start already made in the window, and the next run it holds
// back shows as waiting for the rate limit. A viewer sees the table without the button.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Browser, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const PASSWORD = "groups-view-password-123";
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };

async function signedInPage(browser: Browser, baseURL: string, role: "viewer" | "operator"): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", {
    headers: sameOrigin(),
    data: { email: `e2e-gv-${role}-${suffix}@vigil.test`, password: PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(200);
  return context.newPage();
}

test("an operator sets a group's start-rate limit in the Groups view and sees the held-back run counted", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const group = `gv-bank-${suffix}`;
  for (const role of ["viewer", "operator"] as const) {
    const res = await page.request.post("/api/users", {
      headers: sameOrigin(),
      data: { email: `e2e-gv-${role}-${suffix}@vigil.test`, password: PASSWORD, role },
    });
    expect(res.status(), await res.text()).toBe(200);
  }
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: {
      name: `e2e-gv-${suffix}`,
      handler: "demo.sleep",
      payload: { ms: 200, records: 1 },
      trigger: YEARLY,
      overlapPolicy: "allow",
      concurrencyGroup: group,
      concurrencyLimit: 10,
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const s = (await created.json()).schedule as { id: string };

  const operator = await signedInPage(browser, baseURL!, "operator");
  const trigger = async () => {
    const res = await operator.request.post(`/api/schedules/${s.id}/trigger`, {
      data: { reason: "e2e groups view" },
      headers: sameOrigin(),
    });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).runId as string;
  };
  // One run starts while the group has no rate limit.
  const first = await trigger();
  await expect
    .poll(async () => (await (await operator.request.get(`/api/runs/${first}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");

  await operator.goto("/workers");
  const row = operator.locator(`[data-testid="group-row"][data-group="${group}"]`);
  await expect(row.getByTestId("group-rate")).toHaveText("none");
  await expect(row.getByTestId("group-concurrency")).toHaveText("10 at once");

  // Set 1 start per hour: a bad value first (the field says what is wrong), then a good one.
  await row.getByTestId("group-edit").click();
  const dialog = operator.getByTestId("group-limits-dialog");
  await dialog.getByTestId("group-rate-enabled").check();
  await dialog.getByTestId("group-max-starts").locator("input").fill("0");
  await dialog.getByTestId("group-per-seconds").locator("input").fill("3600");
  await dialog.getByTestId("group-limits-save").click();
  await expect(dialog.getByTestId("group-max-starts")).toContainText("at least 1");
  await dialog.getByTestId("group-max-starts").locator("input").fill("1");
  await dialog.getByLabel("Reason (optional)").fill("bank-api asked for one call an hour");
  await dialog.getByTestId("group-limits-save").click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("group-rate")).toHaveText("1 per 3600 s");
  // The start made before the limit existed is counted in its window.
  await expect(row.getByTestId("group-window")).toContainText("1 of 1");

  // So the next run waits for the rate limit, and the view counts it.
  const held = await trigger();
  await expect
    .poll(async () => (await (await operator.request.get(`/api/runs/${held}`)).json()).run.waitReason, { timeout: 30_000 })
    .toBe("rate_limit");
  await expect(row.getByTestId("group-waiting-rate")).toHaveText("1 for the rate limit");
  await row.scrollIntoViewIfNeeded();
  await operator.screenshot({ path: "artifacts/screenshots/groups-view-rate-limit.png", fullPage: true });

  const audit = await (await operator.request.get(`/api/audit?action=group.limits_change&target=group:${group}`)).json();
  expect(JSON.stringify(audit)).toContain("bank-api asked for one call an hour");

  // A viewer sees the group and its counts, without the button.
  const viewer = await signedInPage(browser, baseURL!, "viewer");
  await viewer.goto("/workers");
  const viewerRow = viewer.locator(`[data-testid="group-row"][data-group="${group}"]`);
  await expect(viewerRow.getByTestId("group-rate")).toHaveText("1 per 3600 s");
  await expect(viewerRow.getByTestId("group-edit")).toHaveCount(0);

  // Deleting the schedule cancels the waiting run, so nothing is left for later specs.
  const { revision } = (await (await page.request.get(`/api/schedules/${s.id}`)).json()).schedule;
  const del = await page.request.delete(`/api/schedules/${s.id}?revision=${revision}&reason=e2e%20cleanup`, { headers: sameOrigin() });
  expect(del.status(), await del.text()).toBe(200);
});
