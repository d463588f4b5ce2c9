// The API contract as a user meets it: /api/openapi.json answers without signing in, and /api-docs (linked from the
// header's user menu) lists the operations by area with their schemas. Real console (e2e/global-setup.ts).
import { expect, test } from "@playwright/test";

test("the OpenAPI document is public and /api-docs browses it from the user menu", async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const anonymous = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await anonymous.request.get("/api/openapi.json");
  expect(res.status()).toBe(200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { summary: string }>> };
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.paths["/api/runs/{id}/cancel"]?.post?.summary).toMatch(/Cancel/);
  await anonymous.close();

  await page.goto("/schedules");
  await page.getByTestId("user-menu").getByRole("link", { name: "API" }).click();
  await expect(page).toHaveURL(/\/api-docs$/);
  await expect(page.getByRole("heading", { name: "API", level: 1 })).toBeVisible();
  const operations = Object.values(doc.paths).reduce((n, m) => n + Object.keys(m).length, 0);
  await expect(page.getByTestId("api-operation")).toHaveCount(operations);

  const cancel = page.locator("article", { has: page.getByText("/api/runs/{id}/cancel", { exact: true }) });
  await expect(cancel.getByText("Role: operator")).toBeVisible();
  await cancel.getByText("Answer (200)").click();
  await expect(cancel.locator("pre.schema").last()).toContainText('"cancel_requested"');
  await cancel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "artifacts/api-docs.png" });
  await page.getByRole("link", { name: "runs", exact: true }).click();
  await expect(page).toHaveURL(/#tag-runs$/);
});
