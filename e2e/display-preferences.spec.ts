// The user menu's display choices: times in local time or UTC (remembered for the signed-in user in this
// browser, honoured by every timestamp), and a light theme that follows the browser's prefers-color-scheme
// unless the user picks one. Real console (e2e/global-setup.ts).
import { expect, test, type Page } from "@playwright/test";

// A zone with a half-hour offset, so local and UTC can never show the same clock time.
test.use({ timezoneId: "Asia/Kolkata" });

const stamp = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/;

/** The wall-clock reading of "2026-12-01 16:30:05 IST" as if it were UTC, in ms. */
function wallClockMs(text: string): number {
  const m = stamp.exec(text);
  if (!m) throw new Error(`no timestamp in "${text}"`);
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

async function firstAuditTime(page: Page): Promise<string> {
  const cell = page.getByTestId("audit-row").first().locator("td").first();
  await expect(cell).toHaveText(stamp);
  return (await cell.textContent())!.trim();
}

test("times switch between local and UTC from the user menu, and the choice is remembered", async ({ page }) => {
  await page.goto("/audit");
  await page.getByTestId("display-menu").locator("summary").click();
  const toggle = page.getByTestId("time-display");
  await expect(toggle).toHaveValue("local");
  const local = await firstAuditTime(page);
  expect(local).not.toMatch(/UTC$/);

  await toggle.selectOption("utc");
  const row = page.getByTestId("audit-row").first().locator("td").first();
  await expect(row).toHaveText(/UTC$/);
  const utc = (await row.textContent())!.trim();
  // The same instant: Kolkata is UTC+05:30.
  expect(wallClockMs(local) - wallClockMs(utc)).toBe(5.5 * 3_600_000);
  await page.screenshot({ path: "artifacts/screenshots/time-display-utc.png" });

  // Remembered across a reload and on other pages.
  await page.reload();
  await expect(page.getByTestId("display-menu").locator("summary")).toHaveText(/UTC/);
  await expect(page.getByTestId("audit-row").first().locator("td").first()).toHaveText(/UTC$/);

  await page.getByTestId("display-menu").locator("summary").click();
  await page.getByTestId("time-display").selectOption("local");
  await expect(page.getByTestId("audit-row").first().locator("td").first()).not.toHaveText(/UTC$/);
  await page.reload();
  await expect(page.getByTestId("display-menu").locator("summary")).toHaveText(/Local/);
});

const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const LIGHT_BG = "rgb(246, 248, 250)";
const DARK_BG = "rgb(15, 20, 25)";

test.describe("with a browser that prefers light", () => {
  test.use({ colorScheme: "light" });

  test("the console is light, and a chosen dark theme holds across reloads without a light flash", async ({ page }) => {
    await page.goto("/schedules");
    await page.getByTestId("display-menu").locator("summary").click();
    await expect(page.getByTestId("theme-choice")).toHaveValue("system");
    expect(await background(page)).toBe(LIGHT_BG);
    await page.screenshot({ path: "artifacts/screenshots/theme-light.png" });

    await page.getByTestId("theme-choice").selectOption("dark");
    await expect.poll(() => background(page)).toBe(DARK_BG);

    // The stored choice is applied before the page's scripts run: dark from the first paint.
    await page.reload({ waitUntil: "domcontentloaded" });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    expect(await background(page)).toBe(DARK_BG);
    await page.getByTestId("display-menu").locator("summary").click();
    await expect(page.getByTestId("theme-choice")).toHaveValue("dark");

    await page.getByTestId("theme-choice").selectOption("system");
    await expect.poll(() => background(page)).toBe(LIGHT_BG);
  });
});

test.describe("with a browser that prefers dark", () => {
  test.use({ colorScheme: "dark" });

  test("the console is dark, and the light theme can be chosen", async ({ page }) => {
    await page.goto("/schedules");
    expect(await background(page)).toBe(DARK_BG);
    await page.getByTestId("display-menu").locator("summary").click();
    await page.getByTestId("theme-choice").selectOption("light");
    await expect.poll(() => background(page)).toBe(LIGHT_BG);
    await page.screenshot({ path: "artifacts/screenshots/theme-light-chosen.png", fullPage: true });
    await page.getByTestId("theme-choice").selectOption("system");
    await expect.poll(() => background(page)).toBe(DARK_BG);
  });
});
