import { defineConfig } from "@playwright/test";

const chromium = process.env.VIGIL_CHROMIUM_PATH ?? (process.env.PLAYWRIGHT_USE_BUNDLED ? undefined : "/usr/bin/chromium");

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "artifacts/e2e-results",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"], ["json", { outputFile: "artifacts/e2e-report.json" }]],
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: process.env.VIGIL_E2E_BASE_URL,
    // Every spec runs signed in as the E2E admin (e2e/global-setup.ts logs in through the real API).
    // A spec that tests signing in uses `test.use({ storageState: { cookies: [], origins: [] } })`.
    storageState: process.env.VIGIL_E2E_STORAGE ?? "artifacts/e2e-storage.json",
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium", viewport: { width: 1440, height: 900 } } }],
});
