// A trigger URL end to end: an operator creates one on the schedule page, the console shows its secret and a
// signed curl example once, the example is run as shown (real bash, openssl and curl against the real console),
// and the run it created appears in the schedule's recent runs, started by the worker. The secret appears in no
// later page and in no process log.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const run = promisify(execFile);
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;

test("create a trigger URL, fire it with curl as the console shows, see the run", async ({ page }) => {
  test.setTimeout(120_000);
  const res = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: {
      name: unique("e2e-hook"),
      handler: "demo.sleep",
      payload: { ms: 50 },
      trigger: { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" },
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  const schedule = (await res.json()).schedule as { id: string };

  await page.goto(`/schedules/${schedule.id}`);
  const section = page.getByTestId("trigger-urls");
  // The section is drawn once the console knows the role (GET /api/auth/me): slow on a loaded machine.
  await expect(section).toContainText("No trigger URL", { timeout: 30_000 });
  await section.getByTestId("new-trigger-url").click();
  const dialog = page.getByTestId("trigger-url-dialog");
  await dialog.getByLabel("Label").fill("deploy pipeline");
  await page.getByTestId("create-trigger-url").click();

  const shown = page.getByTestId("trigger-url-secret");
  await expect(shown).toBeVisible();
  const secret = (await shown.getByTestId("trigger-url-secret-value").textContent())!.trim();
  expect(secret).toMatch(/^vgh_/);
  const example = (await shown.getByTestId("trigger-url-example").textContent())!;
  expect(example).toContain(secret);
  await expect(section.getByTestId("trigger-url-row")).toHaveCount(1);
  await expect(section.getByTestId("trigger-url-last-used")).toHaveText("never");
  await shown.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/screenshots/trigger-url-created.png", fullPage: true });

  // The example exactly as shown: bash signs with openssl and sends with curl.
  const { stdout } = await run("bash", ["-c", example], { timeout: 30_000 });
  const answer = JSON.parse(stdout) as { runId: string; scheduleId: string; replayed: boolean };
  expect(answer).toMatchObject({ scheduleId: schedule.id, replayed: false });

  // A wrong signature is refused with a code a sender can act on.
  const forged = await run("bash", ["-c", example.replace(secret, "vgh_forged")], { timeout: 30_000 });
  expect(JSON.parse(forged.stdout).error.code).toBe("signature_mismatch");

  await page.getByTestId("trigger-url-secret-done").click();
  await expect(shown).toHaveCount(0);
  // The run is on the schedule's page, and the worker finishes it.
  const runLink = page.locator(`[data-testid="run-row"][data-run-id="${answer.runId}"]`);
  await expect(runLink).toBeVisible({ timeout: 30_000 });
  await expect(section.getByTestId("trigger-url-last-used")).not.toHaveText("never", { timeout: 30_000 });
  await page.goto(`/runs/${answer.runId}`);
  await expect(page.getByTestId("run-state").first()).toHaveAttribute("data-state", "succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("run-trace")).toContainText('triggered by trigger URL "deploy pipeline": webhook delivery my-event-');
  await page.screenshot({ path: "artifacts/screenshots/trigger-url-run.png", fullPage: true });

  await page.goto(`/schedules/${schedule.id}`);
  await expect(page.getByTestId("trigger-url-row")).toHaveCount(1);
  await page.getByTestId("trigger-urls").scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/screenshots/trigger-url-list.png", fullPage: true });
  expect(await page.content()).not.toContain(secret);
  expect(fs.readFileSync("artifacts/e2e-processes.log", "utf8")).not.toContain(secret);
});
