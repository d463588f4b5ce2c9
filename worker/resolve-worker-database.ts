// Which database login a worker uses: the one `npm start` handed it (DATABASE_URL through its settings pipe);
// VIGIL_WORKER_DATABASE_URL when the operator set one; else, started on its own next to a running `npm start` with
// the embedded server, that server's worker login from the data folder's credentials file (with the secret key and
// the audit anchor file kept there), so `npm run worker -- --handlers DIR` connects by itself.
import fs from "node:fs";
import path from "node:path";
import { getEnv, provideSettings } from "../core/env";

export async function resolveWorkerDatabase(): Promise<void> {
  const env = getEnv();
  if (env.VIGIL_WORKER_DATABASE_URL) return provideSettings({ DATABASE_URL: env.VIGIL_WORKER_DATABASE_URL });
  if (env.DATABASE_URL) return;
  const { findEmbeddedDataDir, loginUrl, readCredentials, defaultAnchorFile } = await import("../scripts/lib/embedded-credentials");
  const { LOCAL_SECRET_KEY_FILE } = await import("../scripts/lib/local-secret-key");
  const dir = findEmbeddedDataDir(env.VIGIL_DATA_DIR);
  const logins = readCredentials(dir);
  if (!logins) {
    throw new Error(
      `DATABASE_URL is not set and ${dir} holds no embedded Vigil's credentials: start Vigil with \`npm start\` first (then run the worker from the same folder, or with the same VIGIL_DATA_DIR), or set DATABASE_URL`,
    );
  }
  const settings: Record<string, string> = { DATABASE_URL: loginUrl(env.VIGIL_PG_PORT, "vigil", logins.worker) };
  const keyFile = path.join(dir, LOCAL_SECRET_KEY_FILE);
  if (!env.VIGIL_SECRET_KEY && fs.existsSync(keyFile)) settings.VIGIL_SECRET_KEY = fs.readFileSync(keyFile, "utf8").trim();
  if (!env.VIGIL_AUDIT_ANCHOR_FILE) settings.VIGIL_AUDIT_ANCHOR_FILE = defaultAnchorFile(dir);
  provideSettings(settings);
}
