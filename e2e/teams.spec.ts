// Teams in the console: an operator of team A sees only A's schedules, cannot save a schedule that refers to team B's
// secret (the form says which team owns it), and sees B's calendar read-only once B shares it with A on the Teams page.
// A user who is operator of A and viewer of B narrows the schedules list with the header's team switcher, and sees
// Pause on A's schedule but not on B's. The teams, memberships and objects are made through the real API by the E2E
// admin; the share through the Teams page's form. The switcher also narrows the Runs, Audit, Alerts and Calendars
// pages and the Admin page's secrets (and the audit export, and the header's alerts badge); the edit page and the run
// page follow the role in the object's team.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Browser, type Page } from "@playwright/test";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const PASSWORD = "teams-e2e-password-123";
const EMAIL = `e2e-team-a-${suffix}@vigil.test`;
const EMAIL_AB = `e2e-team-ab-${suffix}@vigil.test`;
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };
const names = {
  a: `tm-a-${suffix}`,
  b: `tm-b-${suffix}`,
  scheduleA: `e2e-team-a-job-${suffix}`,
  scheduleB: `e2e-team-b-job-${suffix}`,
  secretB: `TEAM_B_TOKEN_${suffix.toUpperCase()}`,
  calendarB: `team-b-holidays-${suffix}`,
  formSchedule: `e2e-team-a-form-${suffix}`,
  groupB: `team-b-group-${suffix}`,
  // Both teams' schedules carry it: the Runs page filtered on it shows only this file's runs.
  tag: `teams-e2e-${suffix}`,
  reason: `teams-e2e-switch-${suffix}`,
};

async function adminPage(browser: Browser, baseURL: string): Promise<Page> {
  return browser.newPage({ baseURL, storageState: test.info().project.use.storageState });
}

let operator: Page;
let operatorAViewerB: Page;
let admin: Page;
const ids = { a: "", b: "", scheduleA: "", scheduleB: "", calendarB: "", runA: "", runB: "" };

async function signIn(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", { headers: sameOrigin(), data: { email, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  return context.newPage();
}

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  admin = await adminPage(browser, baseURL!);
  const post = async (url: string, data: unknown, method: "post" | "put" = "post") => {
    const res = await admin.request[method](url, { headers: sameOrigin(), data });
    expect(res.status(), `${url}: ${await res.text()}`).toBe(200);
    return res.json();
  };
  const a = (await post("/api/teams", { name: names.a })).team.id as string;
  const b = (await post("/api/teams", { name: names.b })).team.id as string;
  await post("/api/users", { email: EMAIL, password: PASSWORD, role: "viewer" });
  // Only team A: out of the default team the Users page put them in.
  await post(`/api/teams/${a}/members`, { email: EMAIL, role: "operator" }, "put");
  const { teams } = await (await admin.request.get("/api/teams")).json();
  const defaultTeam = teams.find((t: { name: string }) => t.name === "default").id;
  await post(`/api/teams/${defaultTeam}/members`, { email: EMAIL, role: null }, "put");
  // Operator of A, viewer of B, nothing else.
  await post("/api/users", { email: EMAIL_AB, password: PASSWORD, role: "viewer" });
  await post(`/api/teams/${a}/members`, { email: EMAIL_AB, role: "operator" }, "put");
  await post(`/api/teams/${b}/members`, { email: EMAIL_AB, role: "viewer" }, "put");
  await post(`/api/teams/${defaultTeam}/members`, { email: EMAIL_AB, role: null }, "put");

  ids.a = a;
  ids.b = b;
  ids.scheduleA = (
    await post("/api/schedules", { name: names.scheduleA, team: names.a, handler: "demo.noop", trigger: YEARLY, tags: [names.tag] })
  ).schedule.id;
  ids.scheduleB = (
    await post("/api/schedules", {
      name: names.scheduleB,
      team: names.b,
      handler: "demo.noop",
      trigger: YEARLY,
      tags: [names.tag],
      concurrencyGroup: names.groupB,
    })
  ).schedule.id;
  // A run of each (audited as schedule.trigger with the reason the Audit page searches for).
  ids.runA = (await post(`/api/schedules/${ids.scheduleA}/trigger`, { reason: names.reason })).runId;
  ids.runB = (await post(`/api/schedules/${ids.scheduleB}/trigger`, { reason: names.reason })).runId;
  await post(`/api/secrets/${names.secretB}`, { value: "team-b-only", team: names.b }, "put");
  const calendar = await post("/api/calendars", { name: names.calendarB, team: names.b, timezone: "UTC", dates: ["2030-12-25"] });
  ids.calendarB = calendar.calendar.id;

  operator = await signIn(browser, baseURL!, EMAIL);
  operatorAViewerB = await signIn(browser, baseURL!, EMAIL_AB);
});

test.afterAll(async () => {
  await admin?.close();
});

test("a team-A operator sees only team A's schedules", async () => {
  await operator.goto(`/schedules?q=${suffix}`);
  await expect(operator.getByText(names.scheduleA)).toBeVisible();
  await expect(operator.getByTestId("your-teams")).toContainText(`${names.a} (operator)`);
  await expect(operator.getByText(names.scheduleB)).toHaveCount(0);
  await operator.screenshot({ path: "artifacts/screenshots/teams-operator-schedules.png", fullPage: true });
  // The other team's schedule does not exist for them, even by its address.
  const list = await (await operator.request.get(`/api/schedules?q=${names.scheduleB}`)).json();
  expect(list.schedules).toHaveLength(0);
});

test("a schedule referring to another team's secret is refused on save, naming the team that owns it", async () => {
  await operator.goto("/schedules/new");
  await operator.getByLabel("Name").fill(names.formSchedule);
  await operator.getByLabel("Handler").selectOption("http.request");
  await operator
    .getByLabel("Payload (JSON)")
    .fill(JSON.stringify({ url: "https://example.com/hook", headers: { Authorization: { $secret: names.secretB } } }));
  await operator.getByTestId("save-schedule").click();
  const error = operator.getByTestId("form-error");
  await expect(error).toContainText(`secret ${names.secretB} belongs to team ${names.b}`);
  await expect(operator).toHaveURL(/\/schedules\/new$/);
  await operator.evaluate(() => window.scrollTo(0, 0));
  await operator.screenshot({ path: "artifacts/screenshots/teams-cross-team-secret.png", fullPage: true });
  const list = await (await operator.request.get(`/api/schedules?q=${names.formSchedule}`)).json();
  expect(list.schedules).toHaveLength(0);
});

test("before the share, team B's calendar is not on team A's operator's Calendars page", async () => {
  await operator.goto("/calendars");
  await expect(operator.getByRole("heading", { name: "Calendars" }).first()).toBeVisible();
  await expect(operator.getByText(names.calendarB)).toHaveCount(0);
});

test("team B's admin shares B's calendar with team A on the Teams page (audited)", async () => {
  await admin.goto("/teams");
  const card = admin.locator(`[data-testid="team-card"][data-team="${names.b}"]`);
  const form = card.getByTestId("share-form");
  await form.getByTestId("share-kind").locator("select").selectOption("calendar");
  await form.getByTestId("share-object").locator("select").selectOption({ label: names.calendarB });
  await form
    .getByTestId("share-with")
    .locator("select")
    .selectOption({ label: `team ${names.a}` });
  await form.getByTestId("share-submit").click();
  const given = card.getByTestId("shares-given");
  await expect(given.locator(`[data-testid="share-row"][data-object="${names.calendarB}"]`)).toContainText(names.a);
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: "artifacts/screenshots/teams-share-form.png" });
  // Received on A's side, and audited.
  const shares = await (await admin.request.get(`/api/teams/${ids.a}/shares`)).json();
  expect(shares.received.map((s: { objectName: string }) => s.objectName)).toContain(names.calendarB);
  const audit = await (await admin.request.get(`/api/audit?action=team.share&target=team:${ids.b}`)).json();
  expect(audit.events.length).toBeGreaterThan(0);

  // Secrets and concurrency groups are picked from the team's own, by name (never a value).
  await form.getByTestId("share-kind").locator("select").selectOption("secret");
  const objectSelect = form.getByTestId("share-object").locator("select");
  await expect(objectSelect.locator("option", { hasText: names.secretB })).toHaveCount(1);
  await objectSelect.selectOption({ label: names.secretB });
  await expect(card).not.toContainText("team-b-only");
  await card.screenshot({ path: "artifacts/screenshots/teams-share-form-secret.png" });
  await form.getByTestId("share-kind").locator("select").selectOption("concurrency_group");
  await objectSelect.selectOption({ label: names.groupB });
  await form
    .getByTestId("share-with")
    .locator("select")
    .selectOption({ label: `team ${names.a}` });
  await form.getByTestId("share-submit").click();
  await expect(given.locator(`[data-testid="share-row"][data-object="${names.groupB}"]`)).toContainText(names.a);
});

test("team B's calendar, shared with team A, is on the operator's Calendars page, read-only", async () => {
  await operator.goto("/calendars");
  await expect(operator.getByText(names.calendarB)).toBeVisible();
  await operator.screenshot({ path: "artifacts/screenshots/teams-shared-calendar.png", fullPage: true });
  await operator.goto(`/calendars/${ids.calendarB}`);
  await expect(operator.getByTestId("calendar-team")).toContainText(`Team ${names.b}`);
  await expect(operator.getByTestId("calendar-shared-with")).toContainText(names.a);
  await expect(operator.getByTestId("calendar-read-only")).toContainText(`team ${names.b} shares it with yours`);
  await expect(operator.getByTestId("save-calendar")).toHaveCount(0);
  await expect(operator.getByTestId("calendar-name").locator("input")).toBeDisabled();
  await operator.screenshot({ path: "artifacts/screenshots/teams-shared-calendar-read-only.png", fullPage: true });
  // The API agrees: reading is allowed, changing is not.
  const change = await operator.request.delete(`/api/calendars/${ids.calendarB}`, { headers: sameOrigin() });
  expect([403, 404]).toContain(change.status());
  await operator.goto("/teams");
  await expect(operator.getByTestId("team-card")).toHaveCount(1);
  await expect(operator.getByTestId("team-card")).toContainText(`${names.a}`);
  await operator.screenshot({ path: "artifacts/screenshots/teams-page.png", fullPage: true });
});

test("the header's team switcher narrows the schedules list to one team, and the Teams link is in the header", async () => {
  const page = operatorAViewerB;
  await page.goto(`/schedules?q=${suffix}`);
  await expect(page.getByText(names.scheduleA)).toBeVisible();
  await expect(page.getByText(names.scheduleB)).toBeVisible();
  // In two teams, the switcher takes the account links' room: Teams is in the account drop-down.
  await page.getByTestId("user-menu").locator("summary").first().click();
  await expect(page.getByTestId("user-menu").getByRole("link", { name: "Teams" })).toBeVisible();
  await page.getByTestId("user-menu").locator("summary").first().click();
  await page.getByTestId("team-switcher").selectOption({ label: names.a });
  await expect(page).toHaveURL(new RegExp(`team=${ids.a}`));
  await expect(page.getByText(names.scheduleB)).toHaveCount(0);
  await expect(page.getByText(names.scheduleA)).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher.png" });
  // The pick is remembered: the Runs page is narrowed too, and "All teams" widens again.
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await expect(page.getByText(names.scheduleB)).toBeVisible();
});

test("buttons follow the role in the object's team: Pause on team A's schedule, none on team B's (viewer there)", async () => {
  const page = operatorAViewerB;
  await page.goto(`/schedules/${ids.scheduleA}`);
  await expect(page.getByTestId("pause-schedule")).toBeVisible();
  await expect(page.getByTestId("trigger-now")).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/teams-buttons-team-a.png" });
  await page.goto(`/schedules/${ids.scheduleB}`);
  await expect(page.getByRole("heading", { name: names.scheduleB })).toBeVisible();
  await expect(page.getByTestId("pause-schedule")).toHaveCount(0);
  await expect(page.getByTestId("trigger-now")).toHaveCount(0);
  await expect(page.getByTestId("edit-schedule")).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/teams-buttons-team-b.png" });

  // The edit page too: the form for A's schedule; for B's, a page naming the team and the role editing needs.
  await page.goto(`/schedules/${ids.scheduleA}/edit`);
  await expect(page.getByTestId("save-schedule")).toBeVisible();
  await expect(page.getByTestId("needs-role")).toHaveCount(0);
  await page.goto(`/schedules/${ids.scheduleB}/edit`);
  await expect(page.getByTestId("needs-role")).toContainText(`You are a viewer in team ${names.b}; editing needs operator.`);
  await expect(page.getByTestId("save-schedule")).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/teams-edit-needs-role.png" });

  // The run page names its team, and its buttons follow the role there.
  await page.goto(`/runs/${ids.runB}`);
  await expect(page.getByTestId("run-team")).toHaveText(names.b);
  await expect(page.getByTestId("rerun-run")).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/teams-run-page.png" });
});

test("the team switcher narrows the Runs and Audit pages (and the audit export) to the picked team", async () => {
  const page = operatorAViewerB;
  await page.goto(`/runs?tag=${names.tag}`);
  const rowA = page.locator(`[data-testid="run-row"][data-run-id="${ids.runA}"]`);
  const rowB = page.locator(`[data-testid="run-row"][data-run-id="${ids.runB}"]`);
  await expect(rowA).toBeVisible();
  await expect(rowB).toBeVisible();
  await page.getByTestId("team-switcher").selectOption({ label: names.a });
  await expect(page).toHaveURL(new RegExp(`team=${ids.a}`));
  await expect(rowB).toHaveCount(0);
  await expect(rowA).toBeVisible();
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher-runs.png", fullPage: true });

  // The pick is remembered on the next page: the Audit page shows A's trigger row only, and so does its CSV export.
  await page.goto(`/audit?q=${names.reason}`);
  const rows = page.getByTestId("audit-row");
  await expect(rows).toHaveCount(1);
  await expect(rows.first().locator(`[title="schedule:${ids.scheduleA}"]`)).toBeVisible();
  const exportLink = page.getByTestId("audit-export");
  await expect(exportLink).toHaveAttribute("href", new RegExp(`team=${ids.a}`));
  const csv = await (await page.request.get((await exportLink.getAttribute("href"))!)).text();
  expect([csv.includes(ids.scheduleA), csv.includes(ids.scheduleB)]).toEqual([true, false]);
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher-audit.png", fullPage: true });

  // Every team again: B's rows come back.
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId("audit-export")).not.toHaveAttribute("href", /team=/);
});

test("the team switcher narrows the header's alerts badge and the Alerts page: team B's alert is gone under team A", async () => {
  test.setTimeout(90_000);
  // A hollow success of a team-B schedule raises an alert of team B.
  const hollow = `e2e-team-b-hollow-${suffix}`;
  const made = await admin.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name: hollow, team: names.b, handler: "demo.sleep", payload: { ms: 10, records: 0 }, trigger: YEARLY, expectRecordsMin: 1 },
  });
  expect(made.status(), await made.text()).toBe(200);
  const scheduleId = (await made.json()).schedule.id as string;
  const trig = await admin.request.post(`/api/schedules/${scheduleId}/trigger`, { headers: sameOrigin(), data: { reason: "e2e" } });
  expect(trig.status(), await trig.text()).toBe(200);
  const openAlertsOf = async (query: string) =>
    (
      (await (await admin.request.get(`/api/alerts?${query}&limit=500`)).json()).alerts as {
        scheduleId: string | null;
        resolvedAt: string | null;
      }[]
    ).filter((a) => a.scheduleId === scheduleId && a.resolvedAt === null).length;
  await expect.poll(() => openAlertsOf(`team=${ids.b}`), { timeout: 45_000 }).toBe(1);

  const page = operatorAViewerB;
  await page.goto("/alerts");
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  const badge = page.getByTestId("alerts-badge");
  const row = page.locator('[data-testid="alert-row"][data-kind="hollow"]').filter({ hasText: hollow });
  await expect(row).toHaveCount(1);
  await expect(badge).toBeVisible();
  const all = (await (await page.request.get("/api/alerts/summary")).json()) as { open: number };
  await expect.poll(async () => Number(await badge.getAttribute("data-count"))).toBeGreaterThanOrEqual(1);

  await page.getByTestId("team-switcher").selectOption({ label: names.a });
  await expect(page).toHaveURL(new RegExp(`team=${ids.a}`));
  await expect(row).toHaveCount(0);
  // The badge counts team A's alerts (and those of no schedule) only: fewer than every team's, B's among them.
  const onlyA = (await (await page.request.get(`/api/alerts/summary?team=${ids.a}`)).json()) as { open: number };
  expect(onlyA.open).toBeLessThan(all.open);
  if (onlyA.open === 0) await expect(badge).toHaveCount(0);
  else await expect(badge).toHaveAttribute("data-count", String(onlyA.open));
  await expect(badge.and(page.locator(`[title*="${hollow}"]`))).toHaveCount(0);
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher-alerts.png", fullPage: true });

  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await expect(row).toHaveCount(1);
});

test("the team switcher narrows the Calendars list and the Secrets panel: team B's are gone under team A, back with All teams", async () => {
  // A calendar of team B that is not shared (B's other calendar is shared with A above and stays listed under A).
  const priv = `team-b-private-${suffix}`;
  const made = await admin.request.post("/api/calendars", {
    headers: sameOrigin(),
    data: { name: priv, team: names.b, timezone: "UTC", dates: ["2031-01-01"] },
  });
  expect(made.status(), await made.text()).toBe(200);
  const page = admin;
  await page.goto("/calendars");
  const privRow = page.getByTestId("calendar-row").filter({ hasText: priv });
  const sharedRow = page.getByTestId("calendar-row").filter({ hasText: names.calendarB });
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await expect(privRow).toHaveCount(1);
  await page.getByTestId("team-switcher").selectOption({ label: names.a });
  await expect(page).toHaveURL(new RegExp(`team=${ids.a}`));
  await expect(privRow).toHaveCount(0);
  // A calendar shared with the picked team is listed under it (owned by it OR shared with it).
  await expect(sharedRow).toHaveCount(1);
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher-calendars.png", fullPage: true });

  // The pick is remembered on the Admin page: team B's secret is not in the Secrets panel under team A (A's own
  // secret shows the list has loaded).
  const secretA = `TEAM_A_TOKEN_${suffix.toUpperCase()}`;
  const put = await admin.request.put(`/api/secrets/${secretA}`, { headers: sameOrigin(), data: { value: "team-a-only", team: names.a } });
  expect(put.status(), await put.text()).toBe(200);
  await page.goto("/admin");
  const secretRow = page.getByTestId(`secret-row-${names.secretB}`);
  const secretRowA = page.getByTestId(`secret-row-${secretA}`);
  await expect(secretRowA).toBeVisible();
  await expect(secretRow).toHaveCount(0);
  await secretRowA.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/screenshots/teams-switcher-secrets.png" });
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await expect(secretRow).toHaveCount(1);
  await page.getByTestId("team-switcher").selectOption({ label: names.a });
  await expect(secretRowA).toBeVisible();
  await expect(secretRow).toHaveCount(0);
  await page.getByTestId("team-switcher").selectOption({ label: "All teams" });
  await page.goto("/calendars");
  await expect(privRow).toHaveCount(1);
});

test("the global admin's header keeps to one row at 1,440 px with the team switcher; Teams is in the account menu", async () => {
  await admin.setViewportSize({ width: 1440, height: 800 });
  await admin.goto("/schedules");
  await expect(admin.getByTestId("team-switcher")).toBeVisible();
  await expect(admin.getByTestId("user-menu-label")).toBeVisible();
  const rows = await admin.locator("header.topbar").evaluate((header) => {
    const items = [...header.children].filter((c) => c.getBoundingClientRect().width > 0);
    const tops = items.map((c) => c.getBoundingClientRect().top);
    return { spread: Math.max(...tops) - Math.min(...tops), right: Math.max(...items.map((c) => c.getBoundingClientRect().right)) };
  });
  expect(rows.spread, JSON.stringify(rows)).toBeLessThan(12);
  expect(rows.right, JSON.stringify(rows)).toBeLessThanOrEqual(1440);
  await admin.getByTestId("user-menu").locator("summary").first().click();
  await expect(admin.getByTestId("user-menu").getByRole("link", { name: "Teams" })).toBeVisible();
  await admin.screenshot({ path: "artifacts/screenshots/teams-header-admin-1440.png", clip: { x: 0, y: 0, width: 1440, height: 360 } });
});
