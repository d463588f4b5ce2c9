// The tutorial (docs/tutorial.md), walked as a newcomer follows it: sign in, load the job it shows into a worker,
// schedule it in the console, see it run, cancel a slow run, read the audit trail — and every block the tutorial
// marks as runnable runs against this console and succeeds. The job's code is taken from the tutorial itself, so
// the page and the test cannot drift apart.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect as baseExpect, test } from "@playwright/test";
import { E2E_ADMIN } from "./global-setup";
import { sameOrigin } from "./same-origin";
import { launch, terminate, type Managed } from "../scripts/lib/processes";
import { runnableBlocks } from "../scripts/lib/docs-check";

const TUTORIAL = fs.readFileSync("docs/tutorial.md", "utf8");
// A newcomer's pace on a shared, loaded machine: pages and runs get time, the steps still have to happen.
const expect = baseExpect.configure({ timeout: 45_000 });

/** The tutorial's handler module: the TypeScript block that names its file. */
function tutorialJob(): { file: string; code: string } {
  const m = /```ts\n(\/\/ vigil-jobs\/([\w.-]+)\n[\s\S]*?)\n```/.exec(TUTORIAL);
  if (!m) throw new Error("docs/tutorial.md has no ```ts block starting with // vigil-jobs/<file>");
  return { file: m[2]!, code: m[1]! };
}

let jobsDir = "";
let worker: Managed | undefined;

test.use({ storageState: { cookies: [], origins: [] } });

test.beforeAll(async () => {
  jobsDir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-jobs-"));
  const job = tutorialJob();
  fs.writeFileSync(path.join(jobsDir, job.file), job.code);
  // What `VIGIL_HANDLERS=… npm start` does for its worker: the same worker program with the folder to load.
  const databaseUrl = process.env.VIGIL_E2E_DATABASE_URL;
  if (!databaseUrl) throw new Error("the e2e global setup did not set VIGIL_E2E_DATABASE_URL");
  worker = launch(
    "tutorial-worker",
    ["--import", "tsx", "worker/main.ts"],
    { ...process.env, DATABASE_URL: databaseUrl, VIGIL_PROCESS: "worker", VIGIL_LOG_FORMAT: "json", VIGIL_HANDLERS: jobsDir },
    { quiet: true, sink: fs.createWriteStream("artifacts/e2e-tutorial-worker.log"), exitWithParent: true },
  );
});

test.afterAll(async () => {
  if (worker) await terminate(worker);
  fs.rmSync(jobsDir, { recursive: true, force: true });
});

test("the tutorial, step by step: my own job runs on a schedule, I cancel a run, I read the audit trail", async ({ page, baseURL }) => {
  test.setTimeout(900_000);
  expect(runnableBlocks(TUTORIAL).length).toBeGreaterThanOrEqual(4);

  // 2. Sign in.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Sign in to Vigil" })).toBeVisible();
  await page.getByLabel("Email").fill(E2E_ADMIN.email);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("user-menu-label")).toHaveText(E2E_ADMIN.email);

  // 3. The worker loaded the job: Workers lists it under Handlers, served by a live worker.
  await page.getByRole("link", { name: "Workers", exact: true }).first().click();
  const handlerRow = page.locator('[data-testid="handler-row"][data-handler="tutorial.hello"]');
  await expect(handlerRow).toHaveAttribute("data-live", "true", { timeout: 60_000 });

  // 4. Schedule it: Schedules → + New schedule, the four fields the tutorial names, Save.
  // The name the tutorial gives; every e2e run starts from a fresh database.
  const name = "hello";
  await page.getByRole("link", { name: "Schedules", exact: true }).first().click();
  await page.getByRole("link", { name: "+ New schedule" }).click();
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Handler").selectOption("tutorial.hello");
  await page.getByLabel("Payload (JSON)").fill('{ "name": "world", "waitSeconds": 2 }');
  await expect(page.getByTestId("field-payload")).toContainText("fits the handler's schema");
  await page.getByRole("button", { name: "Every 10 s" }).click();
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  const scheduleUrl = page.url();
  const scheduleId = /schedules\/([0-9a-f-]{36})/.exec(scheduleUrl)![1]!;

  // Its first scheduled run succeeds, and its page shows the handler's log line.
  await page.goto(`/runs?scheduleId=${scheduleId}`);
  const succeeded = page.locator('[data-testid="run-row"][data-state="succeeded"]').first();
  await expect(succeeded).toBeVisible({ timeout: 60_000 });
  const runId = (await succeeded.getAttribute("data-run-id"))!;
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-trace")).toContainText("hello, world");
  const run = await (await page.request.get(`/api/runs/${runId}`)).json();
  expect(JSON.stringify(run)).toContain('"kind":"scheduled"');

  // 5. An API token from the Admin page, role operator.
  await page.goto("/admin");
  const tokenForm = page.getByRole("form", { name: "New API token" });
  await tokenForm.getByLabel("Token name").fill(`tutorial-${Date.now().toString(36)}`);
  await tokenForm.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("token-secret").locator("code").first().textContent())!.trim();
  expect(token.length).toBeGreaterThan(20);

  // 6. Trigger a slow run with a payload for this run only, then cancel it from the runs list.
  await page.goto(scheduleUrl);
  await page.getByTestId("trigger-now").click();
  const trigger = page.getByTestId("trigger-dialog");
  await trigger.getByLabel("Reason").fill("tutorial: a slow run");
  await trigger.getByTestId("trigger-override").check();
  await trigger.getByLabel("Payload (JSON)").fill('{ "name": "slow", "waitSeconds": 300 }');
  await page.getByTestId("confirm-trigger").click();
  await expect(page.getByTestId("action-notice")).toContainText("Triggered", { timeout: 60_000 });
  const slowRunId = (await page.getByTestId("triggered-run-link").getAttribute("href"))!.split("/").pop()!;

  await page.goto(`/runs?scheduleId=${scheduleId}`);
  const slow = page.locator(`[data-testid="run-row"][data-run-id="${slowRunId}"]`);
  await expect(slow).toHaveAttribute("data-state", "running", { timeout: 60_000 });
  await slow.getByTestId("cancel-run").click();
  await page.getByTestId("cancel-dialog").getByLabel("Reason").fill("tutorial: too slow");
  await page.getByTestId("confirm-cancel").click();
  await expect(slow).toHaveAttribute("data-state", "cancelled", { timeout: 60_000 });
  await page.goto(`/runs/${slowRunId}`);
  const stages = page.getByTestId("cancel-stages");
  await expect(stages).toContainText("tutorial: too slow");
  await expect(stages.locator('[data-stage="cancelled"]')).toHaveAttribute("data-done", "true");

  // 7. The audit trail names what was done, with the reasons given.
  await page.getByRole("link", { name: "Audit", exact: true }).first().click();
  await expect(page.locator('[data-testid="audit-row"][data-action="run.cancel"]').first()).toContainText("tutorial: too slow");
  await expect(page.locator('[data-testid="audit-row"][data-action="schedule.trigger"]').first()).toContainText("tutorial: a slow run");
  await expect(page.locator('[data-testid="audit-row"][data-action="schedule.create"]').first()).toBeVisible();

  // The timeline the README shows, with this schedule's runs in it.
  await page.getByRole("link", { name: "Timeline", exact: true }).first().click();
  // With more schedules than one page of lanes (the suite's other specs made many), find it by name as a user would.
  await page.getByPlaceholder("name or handler").fill(name);
  await expect(page.locator(`[data-testid="timeline-lane"][data-schedule="${name}"]`)).toHaveCount(1);
  fs.mkdirSync("artifacts/screenshots", { recursive: true });
  await page.screenshot({ path: "artifacts/screenshots/tutorial-timeline.png", clip: { x: 0, y: 0, width: 1440, height: 520 } });

  // Every block the tutorial marks runnable, in order, as a reader runs it in a second terminal.
  for (const block of runnableBlocks(TUTORIAL)) {
    const r = spawnSync("bash", ["-euo", "pipefail", "-c", block], {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, VIGIL_URL: baseURL!, VIGIL_TOKEN: token, DATABASE_URL: process.env.VIGIL_E2E_DATABASE_URL! },
    });
    expect(r.status, `${block}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
    expect(r.stdout.trim().length, block).toBeGreaterThan(0);
  }

  await page.request.delete(`/api/schedules/${scheduleId}`, { headers: sameOrigin() });
});
