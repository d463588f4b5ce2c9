// Real worker processes for tests: spawn, wait until registered, SIGTERM or SIGKILL, read logs.
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";
import pg from "pg";
import { waitFor } from "./wait-for";

export interface TestWorker {
  child: ChildProcess;
  pid: number;
  logs: string[];
  workerId: () => Promise<string>;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** args: the worker's own flags, e.g. ["--handlers", dir, "--serve", "acme.*"]. */
export function startWorker(databaseUrl: string, env: Record<string, string> = {}, args: string[] = []): TestWorker {
  const child = spawn(process.execPath, ["--import", "tsx", "worker/main.ts", ...args], {
    // The tests' receivers and services listen on 127.0.0.1, which the egress policy refuses unless allowed;
    // a test of the policy itself passes its own VIGIL_EGRESS_ALLOW.
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      VIGIL_LOG_FORMAT: "json",
      VIGIL_PROCESS: "worker",
      VIGIL_EGRESS_ALLOW: "127.0.0.1",
      ...env,
    },
    // The IPC channel closes when this process dies: the worker then drains and exits (worker/main.ts).
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const logs: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) readline.createInterface({ input: s }).on("line", (l) => logs.push(l));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const pid = child.pid!;
  return {
    child,
    pid,
    logs,
    exited,
    async workerId() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return await waitFor(
          `worker pid ${pid} to register`,
          async () => {
            if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}: ${logs.slice(-5).join("\n")}`);
            const { rows } = await client.query(
              "SELECT id FROM workers WHERE pid = $1 AND stopped_at IS NULL ORDER BY started_at DESC LIMIT 1",
              [pid],
            );
            return rows[0]?.id as string | undefined;
          },
          { timeoutMs: 30000 },
        );
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
