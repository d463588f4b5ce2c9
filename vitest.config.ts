import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  // "vigil/sdk" as the worker resolves it for handler modules (worker/handlers/sdk-resolution.ts).
  resolve: { alias: { "@": path.resolve(import.meta.dirname), "vigil/sdk": path.resolve(import.meta.dirname, "sdk/index.ts") } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // Pure tests, but scrypt and DST sweeps are CPU-bound and the machine is shared.
          testTimeout: 30_000,
          include: ["{core,worker,app,components,scripts,cli}/**/*.test.ts"],
          exclude: ["**/*.db.test.ts", "node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "db",
          include: ["{core,worker,app,scripts,test,cli}/**/*.db.test.ts"],
          globalSetup: ["test/vitest-global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // Several files start real worker processes; two cores do not run many at once well.
          maxWorkers: 2,
        },
      },
    ],
  },
});
