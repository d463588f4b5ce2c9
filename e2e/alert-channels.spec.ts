// Routing an alert to email: an admin creates an email channel on the Alerts page pointing at a real SMTP server
// this test runs, routes one alert kind of one tag to it, sends a test alert and reads it from the server; then a
// real failing run of a tagged schedule raises the alert and its email is read from the same server.
// Real console, real worker, real Postgres (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";
import { startSmtpReceiver, type SmtpReceiver } from "../test/smtp-receiver";

const YEARLY = { kind: "cron", cron: "0 0 1 1 *", timezone: "UTC" };
let smtp: SmtpReceiver;

test.beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
test.afterAll(async () => {
  await smtp.close();
});

test("an email channel made in the console gets a test alert and the alert of a real failing run", async ({ page }) => {
  test.setTimeout(150_000);
  const suffix = Date.now().toString(36);
  const tag = `mail-${suffix}`;
  const channelName = `e2e email ${suffix}`;

  await page.goto("/alerts");
  const section = page.getByTestId("alert-channels");
  await expect(section.getByRole("heading", { name: "Channels" })).toBeVisible();
  await section.getByTestId("new-channel").click();
  const dialog = page.getByTestId("channel-dialog");
  await dialog.getByTestId("channel-name").fill(channelName);
  await dialog.getByTestId("channel-host").fill(smtp.host);
  await dialog.getByTestId("channel-port").fill(String(smtp.port));
  await dialog.getByTestId("channel-from").fill("vigil@example.com");
  await dialog.getByTestId("channel-to").fill("oncall@example.com");
  await dialog.getByTestId("route-kind-failures").check();
  await dialog.getByTestId("route-tags").fill(tag);
  await dialog.screenshot({ path: "artifacts/screenshots/alert-channel-dialog.png" });
  await dialog.getByTestId("save-channel").click();
  await expect(dialog).toBeHidden();

  const row = section.locator(`[data-testid="alert-channel"][data-name="${channelName}"]`);
  await expect(row).toContainText("Email (SMTP)");
  await expect(row).toContainText(`Consecutive failures · tags ${tag}`);
  await row.getByTestId("test-channel").click();
  await expect(row.getByTestId("test-outcome")).toHaveAttribute("data-delivered", "true", { timeout: 20_000 });
  await expect(row.getByTestId("test-outcome")).toContainText(/Delivered in \d+ ms/);
  await expect.poll(() => smtp.messages.length).toBe(1);
  const testMail = smtp.messages[0]!;
  expect(testMail.to).toEqual(["oncall@example.com"]);
  expect(testMail.subject).toBe("[Vigil] CRITICAL Consecutive failures opened — (test alert)");
  expect(testMail.text).toContain(`to channel "${channelName}"`);
  await section.screenshot({ path: "artifacts/screenshots/alert-channels.png" });

  // A real run that fails: its schedule alerts after one failure and carries the routed tag.
  const name = `e2e-mail-${suffix}`;
  const created = await page.request.post("/api/schedules", {
    headers: sameOrigin(),
    data: { name, handler: "demo.flaky", payload: { p: 1 }, trigger: YEARLY, tags: [tag], failureAlertThreshold: 1 },
  });
  expect(created.status(), await created.text()).toBe(200);
  const scheduleId = (await created.json()).schedule.id as string;
  const trig = await page.request.post(`/api/schedules/${scheduleId}/trigger`, { data: { reason: "e2e channel" }, headers: sameOrigin() });
  expect(trig.status(), await trig.text()).toBe(200);
  const { runId } = await trig.json();
  await expect
    .poll(async () => (await (await page.request.get(`/api/runs/${runId}`)).json()).run.state, { timeout: 30_000 })
    .toBe("failed");

  await expect.poll(() => smtp.messages.length, { timeout: 60_000 }).toBe(2);
  const alertMail = smtp.messages[1]!;
  expect(alertMail.subject).toBe(`[Vigil] CRITICAL Consecutive failures opened — ${name}`);
  expect(alertMail.text).toContain(`Schedule: ${name}`);
  expect(alertMail.text).toMatch(/Open in Vigil: http:\/\/localhost:\d+\/schedules\//);
  expect(alertMail.html).toContain(name);

  await page.goto("/alerts");
  const alertRow = page.locator('[data-testid="alert-row"][data-kind="failures"]').filter({ hasText: name });
  await expect(alertRow).toHaveCount(1, { timeout: 20_000 });
  await page.screenshot({ path: "artifacts/screenshots/alerts-with-channels.png", fullPage: true });
});
