// Starts what the e2e suite runs against: a real PostgreSQL (embedded, temporary), the production
// console build and a real worker process. Refuses any non-local database.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildIsCurrent, stampBuild } from "../scripts/lib/build";
import { launch, terminate, type Managed } from "../scripts/lib/processes";
import { cloneTemplate, freePort, startTestPostgres } from "../test/postgres-for-tests";
import { ensureFirstAdminAt } from "../core/auth/ensure-first-admin";
import { splitSettings } from "../scripts/lib/handed-settings";
import { setUpRoleDatabase } from "../test/role-database";
import { OUTSIDE_CONTRACT_MESSAGE } from "../app/api/_lib/contract/answer-outside-contract";

export const E2E_ADMIN = { email: "admin@vigil.test", password: "correct-horse-battery-staple" };
/** Playwright storage state of the signed-in E2E admin; playwright.config.ts makes every spec use it. */
export const E2E_STORAGE = "artifacts/e2e-storage.json";

/** Signs in through the real login API and saves the session cookie as Playwright storage state. */
async function signIn(baseURL: string): Promise<string> {
  const res = await fetch(`${baseURL}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(E2E_ADMIN),
  });
  if (!res.ok) throw new Error(`E2E admin sign-in failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("vigil_session="));
  if (!cookie) throw new Error("E2E admin sign-in returned no session cookie");
  const value = cookie.split(";")[0]!.slice("vigil_session=".length);
  const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie)?.[1] ?? 3600);
  const state = {
    cookies: [
      {
        name: "vigil_session",
        value,
        domain: new URL(baseURL).hostname,
        path: "/",
        expires: Math.floor(Date.now() / 1000) + maxAge,
        httpOnly: true,
        secure: false,
        sameSite: "Lax" as const,
      },
    ],
    origins: [],
  };
  fs.writeFileSync(E2E_STORAGE, JSON.stringify(state, null, 2));
  // Specs read this run's own copy: several suites started in one checkout would otherwise sign
  // each other's browsers in to the wrong server.
  const own = `artifacts/e2e-storage-${process.pid}.json`;
  fs.writeFileSync(own, JSON.stringify(state, null, 2));
  return own;
}

/** The console's log lines that report an answer outside the contract (VIGIL_CHECK_ANSWERS), one line each. */
function answersOutsideContract(logPath: string): string[] {
  const found: string[] = [];
  for (const line of fs.readFileSync(logPath, "utf8").split("\n")) {
    if (!line.includes(OUTSIDE_CONTRACT_MESSAGE)) continue;
    const start = line.indexOf("{");
    try {
      const entry = JSON.parse(line.slice(start)) as { method?: string; path?: string; status?: number; issues?: string[] };
      found.push(`  ${entry.method} ${entry.path} → ${entry.status}: ${(entry.issues ?? []).join("; ")}`);
    } catch {
      found.push(`  ${line.slice(0, 500)}`);
    }
  }
  return found;
}

async function waitForReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/api/health`);
      const body = (await res.json()) as { ready?: boolean };
      if (body.ready) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline)
      throw new Error(`The console at ${url} did not become ready (database, migrations, worker) in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export default async function globalSetup() {
  const pg = await startTestPostgres();
  const databaseUrl = await cloneTemplate(pg.adminUrl, "e2e");
  if (!buildIsCurrent()) {
    const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (r.status !== 0) throw new Error("next build failed");
    stampBuild();
  }
  const port = await freePort();
  const baseURL = `http://localhost:${port}`;
  fs.mkdirSync("artifacts", { recursive: true });
  // The console and the worker connect with their least-privilege logins (core/db/grants.ts), handed through a pipe
  // like `npm start` does: every path the suite drives is also a check that the grants cover it. Specs' fixtures
  // keep the superuser's URL (VIGIL_E2E_DATABASE_URL).
  const roles = await setUpRoleDatabase(pg.adminUrl, databaseUrl);
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    VIGIL_LOG_FORMAT: "json",
    VIGIL_ADMIN_EMAIL: E2E_ADMIN.email,
    VIGIL_ADMIN_PASSWORD: E2E_ADMIN.password,
    // Audit anchors every second to a file the console reads too (the audit page shows the last one).
    VIGIL_AUDIT_ANCHOR_INTERVAL: "1",
    VIGIL_AUDIT_ANCHOR_FILE: path.resolve("artifacts/e2e-audit-anchors.jsonl"),
    VIGIL_EGRESS_ALLOW: "127.0.0.1", // the specs' receivers and services listen on loopback
    // Every answer the suite receives is checked against the API contract; one outside it fails the run (below).
    VIGIL_CHECK_ANSWERS: "true",
  };
  fs.rmSync(env.VIGIL_AUDIT_ANCHOR_FILE, { force: true });
  const handed = splitSettings(env, {
    // The secret store's key, shared by the console (encrypts) and the worker (decrypts).
    VIGIL_SECRET_KEY: process.env.VIGIL_SECRET_KEY || crypto.randomBytes(32).toString("base64"),
  });
  const logFile = fs.createWriteStream("artifacts/e2e-processes.log");
  const children: Managed[] = [
    launch(
      "console",
      ["--import", "tsx", "scripts/console-server.ts", "-p", String(port)],
      { ...handed.env, VIGIL_PROCESS: "console" },
      { quiet: true, sink: logFile, settings: { ...handed.settings, DATABASE_URL: roles.console } },
    ),
    // The worker also loads the repository's example handlers the way a user's folder is loaded.
    launch(
      "worker",
      ["--import", "tsx", "worker/main.ts"],
      { ...handed.env, VIGIL_PROCESS: "worker", VIGIL_HANDLERS: "examples/handlers" },
      { quiet: true, sink: logFile, exitWithParent: true, settings: { ...handed.settings, DATABASE_URL: roles.worker } },
    ),
  ];
  process.env.VIGIL_E2E_BASE_URL = baseURL;
  process.env.VIGIL_E2E_DATABASE_URL = databaseUrl;
  process.env.DATABASE_URL = databaseUrl;
  // Generous: on a loaded machine the worker alone can take a minute to start (tsx compiles it first).
  await waitForReady(baseURL, 180_000);
  await ensureFirstAdminAt(databaseUrl, E2E_ADMIN);
  const storage = await signIn(baseURL);
  process.env.VIGIL_E2E_STORAGE = storage;
  return async () => {
    fs.rmSync(storage, { force: true });
    await Promise.all(children.map((c) => terminate(c)));
    await new Promise<void>((resolve) => logFile.end(resolve));
    await pg.stop();
    const outside = answersOutsideContract("artifacts/e2e-processes.log");
    if (outside.length > 0)
      throw new Error(`${outside.length} API answer(s) in this run were outside the API contract:\n${outside.join("\n")}`);
  };
}
