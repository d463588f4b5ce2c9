// `npm start`: database → migrations → production build (when missing or stale) → console + worker(s).
// `npm run dev` does the same with `next dev`. Ctrl-C stops everything and the embedded server.
import { spawn, spawnSync } from "node:child_process";
import { getEnv } from "../core/env";
import { StartupError } from "./lib/postgres";
import { prepareDatabase } from "./lib/prepare-database";
import { ensureFirstAdminAt } from "../core/auth/ensure-first-admin";
import { buildIsCurrent, stampBuild } from "./lib/build";
import { launch, terminate, type Managed } from "./lib/processes";
import { WORKER_CONFIG_EXIT_CODE } from "../worker/exit-codes";
import { ensureLocalSecretKey } from "./lib/local-secret-key";
import { supervisePostgres } from "./lib/supervise-postgres";
import { splitSettings } from "./lib/handed-settings";
import { defaultAnchorFile, defaultAnchorFileFor } from "./lib/embedded-credentials";

const dev = process.argv.includes("--dev");
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

async function main(): Promise<void> {
  const env = getEnv();
  const { url, consoleUrl, workerUrl, embedded } = await prepareDatabase(say);
  const admin = await ensureFirstAdminAt(url).catch(async (err) => {
    await embedded?.stop();
    throw new StartupError((err as Error).message);
  });
  if (admin === "created" || admin === "promoted") say(`first admin ${env.VIGIL_ADMIN_EMAIL} ${admin}`);
  if (admin === "not_configured") say("no admin yet: set VIGIL_ADMIN_EMAIL and VIGIL_ADMIN_PASSWORD, or run `npm run create-admin`");
  // In the cluster's own folder: as root from a private checkout that is not VIGIL_DATA_DIR (scripts/lib/postgres-as-root.ts).
  const secretKey = embedded && !env.VIGIL_SECRET_KEY ? { VIGIL_SECRET_KEY: ensureLocalSecretKey(embedded.dataDir, say) } : {};
  if (!embedded && !env.VIGIL_SECRET_KEY)
    say("VIGIL_SECRET_KEY is not set: secrets cannot be set or used until it is (see README, Secrets)");
  // Audit anchors go to a file outside the database by default (the data folder with the embedded server), so the
  // default verify catches a chain rewritten by someone holding the database's full power.
  const anchorFile = env.VIGIL_AUDIT_ANCHOR_FILE ?? (embedded ? defaultAnchorFile(embedded.dataDir) : defaultAnchorFileFor(env));
  // Database URLs and keys are handed through a pipe, not the environment (scripts/lib/handed-settings.ts); the
  // first admin was made above, so neither process gets VIGIL_ADMIN_PASSWORD.
  const { env: childEnv, settings } = splitSettings(
    {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      VIGIL_AUDIT_ANCHOR_FILE: anchorFile,
    },
    { ...secretKey, VIGIL_ADMIN_PASSWORD: undefined, VIGIL_CONSOLE_DATABASE_URL: undefined, VIGIL_WORKER_DATABASE_URL: undefined },
  );
  const consoleSettings = { ...settings, DATABASE_URL: consoleUrl };
  const workerSettings = { ...settings, DATABASE_URL: workerUrl };

  if (!dev && !buildIsCurrent()) {
    say("building the console (sources changed since the last build)…");
    const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: childEnv });
    if (r.status !== 0) {
      await embedded?.stop();
      throw new StartupError("The console build failed; see the output above.");
    }
    stampBuild();
  }

  const children: Managed[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping…");
    await Promise.all(children.map((c) => terminate(c)));
    await embedded?.stop();
    say("stopped");
    process.exit(code);
  };
  // scripts/lib/postgres-server.ts installs SIGINT/SIGTERM hooks that stop the server at once; the
  // workers must drain first, so this launcher owns the signals and stops Postgres last.
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(sig);
    process.on(sig, () => void stopAll(0));
  }
  // The foreground process below holds an IPC channel to this launcher: if it dies (even by SIGKILL), the
  // launcher stops everything in order instead of running on without a terminal.
  if (process.channel) process.once("disconnect", () => void stopAll(1));
  if (embedded) void supervisePostgres(embedded, { say, stopping: () => stopping });

  const consoleProc = launch(
    "console",
    ["--import", "tsx", "scripts/console-server.ts", ...(dev ? ["--dev"] : []), "-p", String(env.PORT)],
    { ...childEnv, VIGIL_PROCESS: "console" },
    { settings: consoleSettings },
  );
  children.push(consoleProc);
  consoleProc.exited.then((code) => {
    if (!stopping) {
      say(`the console exited (code ${code}); stopping`);
      void stopAll(1);
    }
  });

  const workerCount = Number(process.env.VIGIL_WORKERS ?? 1);
  for (let i = 1; i <= workerCount; i++)
    superviseWorker(
      workerCount > 1 ? `worker-${i}` : "worker",
      childEnv,
      workerSettings,
      children,
      () => stopping,
      (code) => void stopAll(code),
    );
  say(`console on http://localhost:${env.PORT} — Ctrl-C stops everything`);
}

/** A worker that ran this long before dying was healthy: its next restart starts the backoff over. */
const HEALTHY_RUN_MS = 60_000;

/**
 * Restarts a worker that dies unexpectedly, with a growing pause so a crash loop does not spin. A worker that
 * refused its configuration (exit code WORKER_CONFIG_EXIT_CODE, e.g. a broken handler module) would refuse it
 * again: everything stops instead, with the worker's one line above.
 */
function superviseWorker(
  name: string,
  env: NodeJS.ProcessEnv,
  settings: Record<string, string>,
  children: Managed[],
  stopping: () => boolean,
  stopAll: (code: number) => void,
): void {
  let restarts = 0;
  const start = () => {
    const startedPerf = performance.now();
    const w = launch(name, ["--import", "tsx", "worker/main.ts"], { ...env, VIGIL_PROCESS: name }, { exitWithParent: true, settings });
    children.push(w);
    w.exited.then((code) => {
      children.splice(children.indexOf(w), 1);
      if (stopping()) return;
      if (code === WORKER_CONFIG_EXIT_CODE) {
        say(`${name} refused its configuration (see its line above); stopping — fix it and run npm start again`);
        stopAll(1);
        return;
      }
      if (performance.now() - startedPerf > HEALTHY_RUN_MS) restarts = 0;
      const delay = Math.min(30000, 1000 * 2 ** restarts++);
      say(`${name} exited (code ${code}); restarting in ${delay / 1000} s`);
      setTimeout(() => !stopping() && start(), delay);
    });
  };
  start();
}

// Ctrl-C signals the terminal's whole process group, which would stop the embedded PostgreSQL at the
// same instant as the worker it must outlive. So the real launcher runs in a process group of its
// own and this foreground process turns Ctrl-C into an orderly stop: workers drain, then Postgres.
function runDetached(): void {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    env: { ...process.env, VIGIL_LAUNCHER: "1" },
  });
  const forward = () => child.kill("SIGTERM");
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.env.VIGIL_LAUNCHER !== "1") runDetached();
else
  main().catch((err) => {
    if (err instanceof StartupError) {
      process.stderr.write(`[start] ${err.message}\n`);
    } else {
      process.stderr.write(`[start] failed: ${(err as Error).stack ?? err}\n`);
    }
    process.exit(1);
  });
