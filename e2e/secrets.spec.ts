// Secrets in the console: an admin sets one on the Admin page (write-only), a schedule refers to it, the worker
// sends the real value to a real HTTP server, and a viewer's schedule page and run page show no value — neither
// the secret's nor a plain-text credential left in a payload (masked for viewers).
import { expect, test } from "@playwright/test";
import crypto from "node:crypto";
import { startWebhookReceiver, type WebhookReceiver } from "../test/webhook-receiver";
import { sameOrigin } from "./same-origin";

const PLANTED = `planted-${crypto.randomBytes(12).toString("hex")}`;
const LEGACY = `legacy-${crypto.randomBytes(12).toString("hex")}`;
const suffix = crypto.randomBytes(3).toString("hex").toUpperCase();
const TOKEN_NAME = `E2E_BANK_TOKEN_${suffix}`;
const URL_NAME = `E2E_BANK_URL_${suffix}`;
const SCHEDULE_NAME = `e2e-secret-${suffix.toLowerCase()}`;
const viewer = { email: `e2e-secrets-viewer-${suffix.toLowerCase()}@vigil.test`, password: "viewer-password-123" };

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver(() => 200);
});
test.afterAll(async () => {
  await receiver?.close();
});

test("a viewer's schedule and run pages show no secret value and no plain credential", async ({ page, browser }) => {
  // The admin sets the secret on the Admin page; the value field is write-only.
  await page.goto("/admin");
  const form = page.getByRole("form", { name: "New secret" });
  await form.getByLabel("Secret name").fill(TOKEN_NAME);
  await form.getByLabel("Value").fill(`Bearer ${PLANTED}`);
  // Which schedules may refer to it: the one this test creates, with http.request only.
  await form.getByLabel("Allowed schedules").fill(SCHEDULE_NAME);
  await form.getByLabel("Only handlers").fill("http.request");
  await form.getByRole("button", { name: "Save secret" }).click();
  await expect(page.getByTestId(`secret-row-${TOKEN_NAME}`)).toContainText("no schedule");
  await expect(page.getByTestId(`secret-access-${TOKEN_NAME}`)).toHaveText(`schedule ${SCHEDULE_NAME}, running http.request only`);
  await expect(form.getByLabel("Value")).toHaveValue("");
  expect(await page.content()).not.toContain(PLANTED);
  // The URL carries a key too: the worker's own log line about the call is redacted.
  const setUrl = await page.request.put(`/api/secrets/${URL_NAME}`, {
    headers: sameOrigin(),
    data: { value: `${receiver.url("/bank")}?key=${PLANTED}`, access: { schedules: [SCHEDULE_NAME], tags: [], handlers: [] } },
  });
  expect(setUrl.status(), await setUrl.text()).toBe(200);

  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: {
      name: SCHEDULE_NAME,
      handler: "http.request",
      trigger: { kind: "once", at: "2099-01-01T00:00:00Z" },
      retryMaxAttempts: 1,
      payload: {
        method: "POST",
        url: { $secret: URL_NAME },
        headers: { Authorization: { $secret: TOKEN_NAME }, "X-Api-Key": LEGACY },
        body: "{}",
      },
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const scheduleId = (await created.json()).schedule.id as string;
  const triggered = await page.request.post(`/api/schedules/${scheduleId}/trigger`, {
    headers: sameOrigin(),
    data: { reason: "e2e secrets" },
  });
  const runId = (await triggered.json()).runId as string;
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("succeeded");
  // The real values reached the server: the worker resolved both references.
  const got = receiver.received.find((r) => r.path.startsWith("/bank"))!;
  expect(got.headers.authorization).toBe(`Bearer ${PLANTED}`);
  expect(got.path).toBe(`/bank?key=${PLANTED}`);

  const users = await page.request.post("/api/users", { headers: sameOrigin(), data: { ...viewer, role: "viewer" } });
  expect(users.status(), await users.text()).toBe(200);
  const ctx = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const v = await ctx.newPage();
  await v.goto("/login");
  await v.getByLabel("Email").fill(viewer.email);
  await v.getByLabel("Password").fill(viewer.password);
  await v.getByRole("button", { name: "Sign in" }).click();
  await expect(v.getByTestId("user-menu-label")).toHaveText(viewer.email);

  await v.goto(`/schedules/${scheduleId}`);
  const detail = v.getByTestId("schedule-detail");
  await expect(detail).toContainText(TOKEN_NAME);
  await expect(detail).toContainText("••••••••");
  const schedulePage = await v.content();
  expect(schedulePage).not.toContain(PLANTED);
  expect(schedulePage).not.toContain(LEGACY);
  await v.screenshot({ path: "artifacts/screenshots/secrets-viewer-schedule.png", fullPage: true });

  await v.goto(`/runs/${runId}`);
  await expect(v.getByTestId("run-logs")).toContainText(`POST [secret ${URL_NAME}] → 200`);
  await expect(v.getByTestId("run-trace")).toContainText("••••••••");
  const runPage = await v.content();
  expect(runPage).not.toContain(PLANTED);
  expect(runPage).not.toContain(LEGACY);
  await v.screenshot({ path: "artifacts/screenshots/secrets-viewer-run.png", fullPage: true });
  // The viewer's Admin page says nothing about secrets either.
  await v.goto("/admin");
  await expect(v.getByText("Only admins manage accounts, tokens and secrets.")).toBeVisible();
  await ctx.close();

  await page.goto("/admin");
  await expect(page.getByTestId(`secret-row-${TOKEN_NAME}`)).toContainText(`e2e-secret-${suffix.toLowerCase()}`);
  await page.screenshot({ path: "artifacts/screenshots/secrets-admin.png", fullPage: true });
});
