// Teams in the console: an operator of team A sees only A's schedules, cannot save a schedule that refers to team B's
// secret (the form says which team owns it), and sees B's calendar once B shares it with A. The teams, memberships and
// objects are made through the real API by the E2E admin; the secret's and the share's team rows through SQL (the
// console has no form for those yet). Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test, type Browser, type Page } from "@playwright/test";
import pg from "pg";
import { sameOrigin } from "./same-origin";

const suffix = Date.now().toString(36);
const PASSWORD = "teams-e2e-password-123";
const EMAIL = `e2e-team-a-${suffix}@vigil.test`;
const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };
const names = {
  a: `tm-a-${suffix}`,
  b: `tm-b-${suffix}`,
  scheduleA: `e2e-team-a-job-${suffix}`,
  scheduleB: `e2e-team-b-job-${suffix}`,
  secretB: `TEAM_B_TOKEN_${suffix.toUpperCase()}`,
  calendarB: `team-b-holidays-${suffix}`,
  formSchedule: `e2e-team-a-form-${suffix}`,
};

async function sql(text: string, params: unknown[]): Promise<void> {
  const c = new pg.Client({ connectionString: process.env.VIGIL_E2E_DATABASE_URL });
  await c.connect();
  try {
    await c.query(text, params);
  } finally {
    await c.end();
  }
}

async function adminPage(browser: Browser, baseURL: string): Promise<Page> {
  return browser.newPage({ baseURL, storageState: test.info().project.use.storageState });
}

let operator: Page;

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const admin = await adminPage(browser, baseURL!);
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

  await post("/api/schedules", { name: names.scheduleA, team: names.a, handler: "demo.noop", trigger: YEARLY });
  await post("/api/schedules", { name: names.scheduleB, team: names.b, handler: "demo.noop", trigger: YEARLY });
  await post(`/api/secrets/${names.secretB}`, { value: "team-b-only" }, "put");
  await sql(`UPDATE secrets SET team_id = $2 WHERE name = $1`, [names.secretB, b]);
  const calendar = await post("/api/calendars", { name: names.calendarB, team: names.b, timezone: "UTC", dates: ["2030-12-25"] });
  await sql(
    `INSERT INTO team_shares (owner_team_id, kind, object_key, shared_with_team_id, created_by) VALUES ($1, 'calendar', $2, $3, 'e2e')`,
    [b, calendar.calendar.id, a],
  );
  await admin.close();

  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.request.post("/api/auth/login", { headers: sameOrigin(), data: { email: EMAIL, password: PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  operator = await context.newPage();
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

test("team B's calendar, shared with team A, is on the operator's Calendars page", async () => {
  await operator.goto("/calendars");
  await expect(operator.getByText(names.calendarB)).toBeVisible();
  await operator.screenshot({ path: "artifacts/screenshots/teams-shared-calendar.png", fullPage: true });
  await operator.goto("/teams");
  await expect(operator.getByTestId("team-card")).toHaveCount(1);
  await expect(operator.getByTestId("team-card")).toContainText(`${names.a}`);
  await operator.screenshot({ path: "artifacts/screenshots/teams-page.png", fullPage: true });
});
