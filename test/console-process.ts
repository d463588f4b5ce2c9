// The real console process for tests (scripts/console-server.ts in development mode, so no build is needed):
// spawn, wait until it listens, read its resident memory, stop.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";
import { freePort } from "../scripts/lib/free-port";
import { waitFor } from "./wait-for";

export interface TestConsole {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  logs: string[];
  stop(): Promise<void>;
}

export async function startConsole(
  databaseUrl: string,
  env: Record<string, string> = {},
  opts: { startTimeoutMs?: number } = {},
): Promise<TestConsole> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/console-server.ts", "--dev", "-p", String(port)], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      VIGIL_LOG_FORMAT: "json",
      VIGIL_PROCESS: "console",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) readline.createInterface({ input: s }).on("line", (l) => logs.push(l));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  try {
    await waitFor(
      "the console to listen",
      () => {
        if (child.exitCode !== null) throw new Error(`console exited with ${child.exitCode}: ${logs.slice(-5).join("\n")}`);
        return logs.some((l) => l.includes("console ready on"));
      },
      { timeoutMs: opts.startTimeoutMs ?? 90_000, intervalMs: 100 },
    );
  } catch (err) {
    // A console that never became ready is not left running (next dev refuses a second one in the same folder).
    child.kill("SIGKILL");
    throw err;
  }
  return {
    child,
    pid: child.pid!,
    baseUrl: `http://localhost:${port}`,
    logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** A process's resident memory in bytes, from /proc/<pid>/status (VmRSS). */
export function residentBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}
