// Tags, maintenance mode and schedules as code, driven as an operator would: filter the schedules list by tag,
// put one tag into maintenance from the Maintenance control (dry run first), see the banner on every page, resume
// after the misfire preview; apply a schedules file with `npm run vigil -- apply` (dry run, then --yes) and find the
// console's editor warning that the file manages the schedule. A viewer gets no Maintenance button.
// Real console, real worker, real Postgres (e2e/global-setup.ts). Only a tag's maintenance is used, so the other
// specs' schedules are never paused by this one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const TAG = `e2e:maint-${suffix}`;
const PASSWORD = "maintenance-tags-password-123";
const HOURLY = { kind: "interval", everySeconds: 3600 };

async function adminPage(browser: Browser, baseURL: string): Promise<Page> {
  return browser.newPage({ baseURL, storageState: test.info().project.use.storageState });
}

async function signedInPage(browser: Browser, baseURL: string, role: "viewer" | "operator"): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", {
    headers: sameOrigin(),
    data: { email: `e2e-mt-${role}-${suffix}@vigil.test`, password: PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(200);
  return context.newPage();
}

const made: string[] = [];

test.beforeAll(async ({ browser, baseURL }) => {
  const admin = await adminPage(browser, baseURL!);
  for (const role of ["viewer", "operator"] as const) {
    const res = await admin.request.post("/api/users", {
      headers: sameOrigin(),
      data: { email: `e2e-mt-${role}-${suffix}@vigil.test`, password: PASSWORD, role },
    });
    expect(res.status(), await res.text()).toBe(200);
  }
  for (const [name, tags] of [
    [`e2e-mt-tagged-${suffix}`, [TAG, "nightly"]],
    [`e2e-mt-other-${suffix}`, ["nightly"]],
  ] as const) {
    const res = await admin.request.post("/api/schedules", {
      headers: sameOrigin(),
      data: { name, handler: "demo.noop", trigger: HOURLY, tags, misfirePolicy: "run_once" },
    });
    expect(res.status(), await res.text()).toBe(200);
    made.push((await res.json()).schedule.id);
  }
  await admin.close();
});

test.afterAll(async ({ browser, baseURL }) => {
  const admin = await adminPage(browser, baseURL!);
  // Never leave a maintenance window behind for the other specs.
  await admin.request.post("/api/schedules/maintenance", { headers: sameOrigin(), data: { action: "resume", tag: TAG } });
  for (const id of made) await admin.request.delete(`/api/schedules/${id}`, { headers: sameOrigin() });
  await admin.close();
});

test("an operator filters by tag, puts a tag into maintenance with a dry run first, sees the banner everywhere, and resumes after the misfire preview", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const page = await signedInPage(browser, baseURL!, "operator");
  await page.goto("/schedules");
  await page.getByLabel("Tag", { exact: true }).fill(TAG);
  await page.getByLabel("Tag", { exact: true }).press("Enter");
  await expect(page).toHaveURL(new RegExp(`tag=${encodeURIComponent(TAG)}`));
  await expect(page.getByTestId("schedule-row")).toHaveCount(1);
  await expect(page.getByTestId("schedule-row")).toHaveAttribute("data-name", `e2e-mt-tagged-${suffix}`);
  await expect(page.getByTestId("schedule-row").getByTestId("tag")).toHaveText([TAG, "nightly"].sort());
  await page.screenshot({ path: "artifacts/screenshots/schedules-tag-filter.png", fullPage: true });

  // Maintenance of that tag: a preview names what will be paused, then the pause.
  await page.getByTestId("maintenance-button").click();
  const dialog = page.getByTestId("maintenance-dialog");
  await dialog.getByTestId("scope-tag").check();
  await dialog.getByTestId("maintenance-tag").locator("input").fill(TAG);
  await dialog.getByTestId("maintenance-confirm").click();
  await expect(dialog.getByTestId("maintenance-reason-error")).toContainText(/say why/i);
  await dialog.getByTestId("maintenance-reason").locator("input").fill("bank API upgrade");
  await dialog.getByTestId("maintenance-confirm").click();
  await expect(dialog.getByTestId("maintenance-preview")).toContainText(`Will pause 1 schedule: e2e-mt-tagged-${suffix}`);
  await page.screenshot({ path: "artifacts/screenshots/maintenance-pause-preview.png" });
  await dialog.getByTestId("maintenance-confirm").click();
  await expect(dialog.getByTestId("maintenance-done")).toHaveText("Paused 1 schedule.");
  await dialog.getByRole("button", { name: "Close" }).click();

  const banner = page.getByTestId("maintenance-banner");
  await expect(banner.locator(`[data-tag="${TAG}"]`)).toContainText("bank API upgrade");
  await expect(banner.locator(`[data-tag="${TAG}"]`)).toContainText("(1 schedule)");
  await expect(page.getByTestId("schedule-row")).toContainText("paused");
  await page.screenshot({ path: "artifacts/screenshots/maintenance-banner-schedules.png", fullPage: true });
  await page.goto("/runs");
  await expect(page.getByTestId("maintenance-banner").locator(`[data-tag="${TAG}"]`)).toBeVisible();

  // Resume: the dialog opens on the misfire dry run, per schedule.
  await page.goto(`/schedules?tag=${encodeURIComponent(TAG)}`);
  await page.getByTestId("maintenance-resume").filter({ hasText: TAG }).click();
  const row = dialog.getByTestId("resume-preview-row");
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-name", `e2e-mt-tagged-${suffix}`);
  await expect(row).toContainText("run_once");
  await page.screenshot({ path: "artifacts/screenshots/maintenance-resume-preview.png" });
  await dialog.getByTestId("maintenance-confirm").click();
  await expect(dialog.getByTestId("maintenance-done")).toContainText("Resumed 1 schedule");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("maintenance-banner").locator(`[data-tag="${TAG}"]`)).toHaveCount(0);
  await expect(page.getByTestId("schedule-row")).not.toContainText("paused");
  await page.context().close();
});

test("a viewer sees the maintenance banner but no Maintenance button", async ({ browser, baseURL }) => {
  const admin = await adminPage(browser, baseURL!);
  const started = await admin.request.post("/api/schedules/maintenance", {
    headers: sameOrigin(),
    data: { action: "pause", tag: TAG, reason: "viewer check" },
  });
  expect(started.status(), await started.text()).toBe(200);
  const page = await signedInPage(browser, baseURL!, "viewer");
  await page.goto("/schedules");
  await expect(page.getByTestId("maintenance-banner").locator(`[data-tag="${TAG}"]`)).toContainText("viewer check");
  await expect(page.getByTestId("schedules-table")).toBeVisible();
  await expect(page.getByTestId("maintenance-button")).toHaveCount(0);
  await expect(page.getByTestId("maintenance-resume")).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/maintenance-viewer.png", fullPage: true });
  const resumed = await admin.request.post("/api/schedules/maintenance", { headers: sameOrigin(), data: { action: "resume", tag: TAG } });
  expect(resumed.status()).toBe(200);
  await page.context().close();
  await admin.close();
});

test("npm run vigil -- apply shows the diff, applies with --yes, and the console warns that the file manages the schedule", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const admin = await adminPage(browser, baseURL!);
  const tokenRes = await admin.request.post("/api/tokens", {
    headers: sameOrigin(),
    data: { name: `e2e-apply-${suffix}`, role: "operator" },
  });
  expect(tokenRes.status(), await tokenRes.text()).toBe(200);
  const token = (await tokenRes.json()).secret as string;
  const name = `e2e-mt-managed-${suffix}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-apply-"));
  const file = path.join(dir, "ops-schedules.yaml");
  fs.writeFileSync(
    file,
    `version: 1\nschedules:\n  ${name}:\n    handler: demo.noop\n    tags: [${JSON.stringify(TAG)}]\n    trigger: {kind: interval, everySeconds: 3600}\n`,
  );
  const vigil = (...args: string[]) =>
    execFileSync("npx", ["tsx", "scripts/vigil.ts", ...args], {
      cwd: path.resolve(import.meta.dirname, ".."),
      env: { ...process.env, VIGIL_URL: baseURL!, VIGIL_TOKEN: token },
      encoding: "utf8",
    });
  const dry = vigil("apply", file);
  expect(dry).toContain(`+ create ${name}`);
  expect(dry).toContain("dry run: nothing changed");
  expect((await (await admin.request.get(`/api/schedules?tag=${encodeURIComponent(TAG)}`)).json()).schedules).toHaveLength(1);
  const done = vigil("apply", file, "--yes");
  expect(done).toContain("applied 1 change in one transaction");
  const exported = vigil("export", "--name", name);
  expect(exported).toContain(`${name}:`);

  const list = (await (await admin.request.get(`/api/schedules?tag=${encodeURIComponent(TAG)}`)).json()).schedules as {
    id: string;
    name: string;
  }[];
  const managed = list.find((s) => s.name === name)!;
  made.push(managed.id);
  await admin.goto(`/schedules/${managed.id}`);
  await expect(admin.getByTestId("managed-pill")).toHaveText("managed by ops-schedules.yaml");
  await admin.getByTestId("edit-schedule").click();
  await expect(admin.getByTestId("managed-warning")).toContainText("managed by the schedules file ops-schedules.yaml");
  await admin.screenshot({ path: "artifacts/screenshots/managed-schedule-warning.png" });

  // A bad file is refused naming the schedule and the field; nothing changes.
  fs.writeFileSync(
    file,
    `version: 1\nschedules:\n  ${name}:\n    handler: demo.noop\n    trigger: {kind: cron, cron: "61 * * * *", timezone: UTC}\n`,
  );
  let refused = "";
  try {
    vigil("apply", file, "--yes");
  } catch (err) {
    refused = String((err as { stderr?: string }).stderr);
  }
  expect(refused).toContain(`schedules.${name}.trigger.cron`);
  await admin.close();
});
