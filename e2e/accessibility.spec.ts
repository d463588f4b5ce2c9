// axe (WCAG 2 A and AA rules) on every console page (app/**/page.tsx), signed in as each role, and on the sign-in
// page signed out: a new violation anywhere fails the suite instead of waiting for someone to check by hand.
import { createRequire } from "node:module";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const suffix = Date.now().toString(36);
const PASSWORD = "accessibility-password-123";
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };
type Role = "viewer" | "operator" | "admin";

interface Violation {
  role: string;
  path: string;
  id: string;
  impact: string | null;
  nodes: string[];
}

/** Every page under app/ (a schedule and a run of it fill the [id] pages). */
const pages = (scheduleId: string, runId: string) => [
  "/",
  "/schedules",
  "/schedules/new",
  `/schedules/${scheduleId}`,
  `/schedules/${scheduleId}/edit`,
  "/runs",
  `/runs/${runId}`,
  "/timeline",
  "/alerts",
  "/audit",
  "/workers",
  "/admin",
];

async function axe(page: Page): Promise<{ id: string; impact: string | null; nodes: { target: string[] }[] }[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const w = window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: never[] }> } };
    const r = await w.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] });
    return r.violations;
  });
}

async function check(page: Page, role: string, path: string, found: Violation[]) {
  await page.goto(path);
  await expect(page.locator("main > *").first()).toBeVisible({ timeout: 30_000 });
  // Checked once the page has drawn its data, not its loading state.
  await expect(page.locator("main")).not.toContainText(/Loading|Drawing the timeline/, { timeout: 30_000 });
  for (const v of await axe(page)) found.push({ role, path, id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) });
}

async function signedIn(browser: Browser, baseURL: string, role: Role): Promise<Page> {
  if (role === "admin")
    return (await browser.newContext({ baseURL, storageState: process.env.VIGIL_E2E_STORAGE ?? "artifacts/e2e-storage.json" })).newPage();
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", {
    headers: sameOrigin(),
    data: { email: `e2e-a11y-${role}-${suffix}@vigil.test`, password: PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(200);
  return context.newPage();
}

test("axe finds no WCAG 2 A/AA violation on any console page, for any role, nor on the sign-in page", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(900_000);
  for (const role of ["viewer", "operator"] as const) {
    const made = await page.request.post("/api/users", {
      headers: sameOrigin(),
      data: { email: `e2e-a11y-${role}-${suffix}@vigil.test`, password: PASSWORD, role },
    });
    expect(made.status(), await made.text()).toBe(200);
  }
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name: `e2e-a11y-${suffix}`, handler: "demo.sleep", payload: { ms: 10, records: 1 }, trigger: YEARLY },
  });
  expect(created.status(), await created.text()).toBe(200);
  const scheduleId = (await created.json()).schedule.id as string;
  const trig = await page.request.post(`/api/schedules/${scheduleId}/trigger`, { headers: sameOrigin(), data: { reason: "e2e a11y" } });
  const runId = (await trig.json()).runId as string;
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");

  const found: Violation[] = [];
  for (const role of ["viewer", "operator", "admin"] as const) {
    const p = await signedIn(browser, baseURL!, role);
    for (const path of pages(scheduleId, runId)) await check(p, role, path, found);
    if (role === "admin") await p.screenshot({ path: "artifacts/screenshots/a11y-admin-last-page.png", fullPage: true });
    await p.context().close();
  }
  const anonymous = await (await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } })).newPage();
  await check(anonymous, "signed out", "/login", found);
  await anonymous.context().close();
  expect(found).toEqual([]);
});
