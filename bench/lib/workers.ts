// Real worker processes for benchmarks, started against a bench database and measured only once every
// executor thread is warm (thread start-up is not what the figures are about).
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";

export async function startWarmWorkers(url: string, n: number, env: Record<string, string> = {}): Promise<TestWorker[]> {
  const ws = Array.from({ length: n }, () => startWorker(url, { VIGIL_LOG_LEVEL: "info", ...env }));
  try {
    for (const w of ws) {
      await w.workerId();
      await waitFor("executor threads warm", () => w.logs.some((l) => l.includes('"executor threads warm"')), { timeoutMs: 180_000 });
    }
  } catch (err) {
    // What the workers said is the only clue to why they never got ready: keep it with the error.
    const tails = ws.map((w, i) => `worker ${i}:\n${w.logs.slice(-15).join("\n")}`).join("\n");
    await Promise.all(ws.map((w) => w.stop()));
    throw new Error(`${(err as Error).message}\n${tails}`, { cause: err });
  }
  return ws;
}
