// Starts a real worker and waits until it can run jobs: registered, executor threads loaded, services started.
// On a busy machine that can take far longer than registration alone, so the wait is generous and fails early
// (with the worker's last log lines) if the process exits.
import { startWorker, type TestWorker } from "./worker-process";
import { waitFor } from "./wait-for";

export async function startWarmWorker(
  databaseUrl: string,
  env: Record<string, string> = {},
  timeoutMs = 180_000,
  args: string[] = [],
): Promise<TestWorker> {
  const w = startWorker(databaseUrl, env, args);
  await waitFor(
    `worker pid ${w.pid} to start its services`,
    () => {
      if (w.child.exitCode !== null) throw new Error(`worker exited with ${w.child.exitCode}: ${w.logs.slice(-5).join("\n")}`);
      return w.logs.some((l) => l.includes('"worker started"')) && w.logs.some((l) => l.includes("executor threads warm"));
    },
    { timeoutMs, intervalMs: 250 },
  ).catch(async (err) => {
    await w.kill();
    throw err;
  });
  return w;
}
