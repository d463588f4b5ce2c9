// The production console a bench measures: built first when its sources changed since the last build, then
// started (scripts/console-server.ts, as `npm start` runs it) on a free port against the bench's database, and
// handed back once its liveness probe answers.
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import { buildIsCurrent, stampBuild } from "../../scripts/lib/build";
import { launch, terminate, type Managed } from "../../scripts/lib/processes";
import { freePort } from "../../scripts/lib/free-port";
import { waitFor } from "../../test/wait-for";

/** `next build` when .next is missing or older than the sources (its output on this terminal); throws when it fails. */
export function buildConsoleIfStale(say: (line: string) => void): void {
  if (buildIsCurrent()) return;
  say("building the console (next build)…");
  const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) throw new Error("next build failed");
  stampBuild();
}

export interface BenchConsole {
  proc: Managed;
  /** `http://localhost:<port>` */
  base: string;
}

/**
 * Starts the built console against `databaseUrl` (a fresh secret key; `env` adds to or overrides the rest) and waits
 * for GET /api/health?probe=live; from `cwd` when given (another tree with its own build, for a baseline). Its output goes to `sink` when given, else nowhere. A console that exits or does not
 * answer within `timeoutMs` is stopped and the call throws.
 */
export async function startBenchConsole(
  databaseUrl: string,
  opts: { env?: Record<string, string>; sink?: NodeJS.WritableStream; timeoutMs?: number; cwd?: string } = {},
): Promise<BenchConsole> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const proc = launch(
    "console",
    ["--import", "tsx", "scripts/console-server.ts", "-p", String(port)],
    {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NEXT_TELEMETRY_DISABLED: "1",
      VIGIL_PROCESS: "console",
      VIGIL_SECRET_KEY: crypto.randomBytes(32).toString("base64"),
      ...opts.env,
    },
    { quiet: true, sink: opts.sink, cwd: opts.cwd },
  );
  try {
    await Promise.race([
      waitFor(
        "the console to answer",
        () =>
          fetch(`${base}/api/health?probe=live`).then(
            (r) => r.ok,
            () => false,
          ),
        { timeoutMs: opts.timeoutMs ?? 120_000, intervalMs: 250 },
      ),
      proc.exited.then((code) => {
        throw new Error(`the console exited (${code}) before it answered`);
      }),
    ]);
  } catch (err) {
    await terminate(proc);
    throw err;
  }
  return { proc, base };
}
