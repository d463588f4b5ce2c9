// What an edit changes, before it is saved: an every-5-minutes schedule edited to every 10 minutes on its edit page
// shows the next fires old vs new side by side and the planned runs the edit supersedes; nothing is saved until the
// operator confirms. Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

test("an edit from */5 to */10 shows the old and new next fires and the superseded runs before saving", async ({ page }) => {
  test.setTimeout(120_000);
  const name = `e2e-edit-diff-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/schedules", {
    data: { name, handler: "demo.noop", trigger: { kind: "cron", cron: "*/5 * * * *", timezone: "UTC" } },
    headers: sameOrigin(),
  });
  expect(created.status(), await created.text()).toBe(200);
  const s = (await created.json()).schedule as { id: string };
  await page.goto(`/schedules/${s.id}/edit`);
  await page.getByLabel("Cron expression").fill("*/10 * * * *");
  await page.getByTestId("save-schedule").click();

  const diff = page.getByTestId("edit-diff");
  await expect(diff).toBeVisible();
  const before = diff.getByTestId("edit-diff-before").locator("li");
  const after = diff.getByTestId("edit-diff-after").locator("li");
  await expect(before).toHaveCount(10);
  await expect(after).toHaveCount(10);
  // Old side: fires at :05, :15 … that the new side does not have, marked; new side: only :00, :10 ….
  await expect(diff.getByTestId("edit-diff-before").locator("li.edit-diff-changed")).not.toHaveCount(0);
  for (const t of await after.locator("time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")!))) {
    expect(new Date(t).getUTCMinutes() % 10).toBe(0);
  }
  // The runs the planner already wrote (its horizon is 2 min): one at :05, :15 … is superseded and listed, one at
  // :00, :10 … is kept; with none at such a minute planned yet, the diff says nothing is superseded.
  const superseded = diff.getByTestId("edit-diff-superseded");
  await expect(superseded).toContainText(/already planned runs? will be superseded|No run already planned is superseded/);
  for (const t of await superseded.locator("time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")!))) {
    expect(new Date(t).getUTCMinutes() % 10).not.toBe(0);
  }
  await diff.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/screenshots/edit-diff.png", fullPage: true });
  await diff.screenshot({ path: "artifacts/screenshots/edit-diff-panel.png" });

  // Nothing saved yet.
  const stored = await (await page.request.get(`/api/schedules/${s.id}`)).json();
  expect(stored.schedule.trigger.cron).toBe("*/5 * * * *");
  expect(stored.schedule.revision).toBe(1);

  await diff.getByTestId("confirm-save").click();
  await expect(page).toHaveURL(new RegExp(`/schedules/${s.id}$`));
  const saved = await (await page.request.get(`/api/schedules/${s.id}`)).json();
  expect(saved.schedule.trigger.cron).toBe("*/10 * * * *");
});
