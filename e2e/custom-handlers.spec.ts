// A handler from the user's own folder, in the console: the e2e worker loads examples/handlers the way an
// operator's VIGIL_HANDLERS folder is loaded; the workers page lists it as served, the schedule form offers
// it and checks its payload against the advertised schema in the browser, and its runs succeed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { sameOrigin } from "./same-origin";

let server: http.Server;
let itemsUrl = "";
const calls: { idempotencyKey: string | undefined }[] = [];

test.beforeAll(async () => {
  server = http.createServer((req, res) => {
    calls.push({ idempotencyKey: req.headers["idempotency-key"] as string | undefined });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify([{ id: 1 }, { id: 2 }, { id: 3 }]));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  itemsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items`;
});

test.afterAll(() => new Promise<void>((r) => server.close(() => r())));

test("a handler loaded from a handlers folder is listed, offered by the form, validated, and runs", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/workers");
  const row = page.locator('[data-testid="handler-row"][data-handler="examples.fetch-json"]');
  await expect(row).toHaveAttribute("data-live", "true");
  await expect(row).toContainText("examples/handlers/fetch-json.ts");
  await expect(page.getByTestId("worker-handlers").first()).toContainText("examples.fetch-json");
  await page.screenshot({ path: "artifacts/screenshots/workers-handlers.png", fullPage: true });

  const name = `e2e-custom-${Date.now().toString(36)}`;
  await page.goto("/schedules/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Handler").selectOption("examples.fetch-json");
  await expect(page.getByTestId("payload-fields")).toContainText("url");
  await expect(page.getByTestId("field-handler")).toContainText("1 live worker");
  // Checked in the browser against the schema the worker advertised.
  await page.getByLabel("Payload (JSON)").fill('{ "url": 5, "extra": true }');
  await expect(page.getByTestId("payload-problems")).toContainText("url");
  await expect(page.getByTestId("payload-problems")).toContainText("extra");
  await page.getByLabel("Payload (JSON)").fill(JSON.stringify({ url: itemsUrl }));
  await expect(page.getByTestId("field-payload")).toContainText("fits the handler's schema");
  await page.getByRole("button", { name: "Every 10 s" }).click();
  await page.screenshot({ path: "artifacts/screenshots/custom-handler-form.png", fullPage: true });
  await page.getByTestId("save-schedule").click();
  await expect(page).toHaveURL(/\/schedules\/[0-9a-f-]{36}$/);
  const id = /schedules\/([0-9a-f-]{36})/.exec(page.url())![1];

  let run: { id: string; records: number } | undefined;
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/runs?scheduleId=${id}&state=succeeded`);
        run = ((await res.json()).runs as { id: string; records: number }[])[0];
        return run?.id ?? null;
      },
      { timeout: 40_000 },
    )
    .not.toBeNull();
  expect(run!.records).toBe(3);
  expect(calls.some((c) => typeof c.idempotencyKey === "string" && c.idempotencyKey.length > 0)).toBe(true);

  await page.goto(`/runs/${run!.id}`);
  await expect(page.getByTestId("run-trace")).toContainText("examples.fetch-json");
  await expect(page.getByTestId("run-trace")).toContainText("fetched");
  await page.screenshot({ path: "artifacts/screenshots/custom-handler-run.png", fullPage: true });
  await page.request.delete(`/api/schedules/${id}`, { headers: sameOrigin() });
});
