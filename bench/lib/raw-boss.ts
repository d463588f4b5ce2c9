// The raw pg-boss baseline's worker process, shared by the benches that compare Vigil's throughput with it:
// work(), one job per handler call, `concurrency` local workers, at pg-boss's fastest settings — the shortest poll
// and burst mode (fetch again at once while the queue has more than one ready job; queue statistics refreshed
// every second by supervision). LISTEN/NOTIFY does not help here: the jobs are created before they are due, so the
// wake-up comes too early and the workers then wait out a long backstop poll. With the default settings each local
// worker waits out the poll between jobs (~40 jobs/s measured here) — not a fair comparison.
// (bench/lateness.bench.ts keeps its own worker on purpose: it measures pg-boss's default polling delay.)
import { PgBoss } from "pg-boss";

export async function rawBossWorkerMain(url: string, queue: string, concurrency: number): Promise<void> {
  const boss = new PgBoss({
    connectionString: url,
    max: 4,
    schedule: false,
    migrate: false,
    supervise: true,
    superviseIntervalSeconds: 1,
    monitorIntervalSeconds: 1,
    queueCacheIntervalSeconds: 1,
  });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.work(
    queue,
    { batchSize: 1, localConcurrency: concurrency, pollingIntervalSeconds: 0.5, burstWhenReadyExceeds: 1 },
    async () => undefined,
  );
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void boss.stop({ graceful: false, close: true }).finally(() => process.exit(0)));
}
