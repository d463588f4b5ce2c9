// What a pg-boss singleton key per occurrence would cost Vigil's run queues. pg-boss refuses a second live job
// (created, retry or active) with the same singleton key only on an 'exclusive' queue (its unique index job_i6);
// on Vigil's 'standard' queues a key refuses nothing. This bench sends N jobs the way the planner does (boss.insert,
// 500 per statement), then takes and completes them 8 at a time, on three queues: 'standard' without keys (today),
// 'standard' with a key per job, and 'exclusive' with a key per job; three alternating rounds. It also shows what
// the exclusive queue refuses: a second job with a live job's key — which is what a retry or a wake job of the same
// run is while the attempt before it is still 'active' (README "pg-boss: singleton keys, expirations, retry jitter").
import crypto from "node:crypto";
import { PgBoss } from "pg-boss";

const N = Number(process.env.VIGIL_BENCH_SINGLETON_JOBS ?? 10_000);
const ROUNDS = 3;
const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set (run it with `npm run bench -- singleton-key`)");

const boss = new PgBoss({ connectionString: url, max: 4, schedule: false, supervise: false, migrate: true });
boss.on("error", (err: Error) => console.error(err));
await boss.start();

const variants = [
  { label: "standard, no key (today)", policy: "standard" as const, keyed: false },
  { label: "standard, key per occurrence", policy: "standard" as const, keyed: true },
  { label: "exclusive, key per occurrence", policy: "exclusive" as const, keyed: true },
];

async function round(v: (typeof variants)[number], r: number): Promise<{ insertMs: number; takeMs: number }> {
  const queue = `bench-sk-${v.policy}-${v.keyed ? "key" : "nokey"}-${r}`;
  await boss.createQueue(queue, { policy: v.policy, retryLimit: 0 });
  const jobs = Array.from({ length: N }, () => {
    const runId = crypto.randomUUID();
    return {
      id: crypto.randomUUID(),
      data: { runId, attempt: 1 },
      retryLimit: 0,
      expireInSeconds: 120,
      ...(v.keyed ? { singletonKey: runId } : {}),
    };
  });
  let t = performance.now();
  for (let i = 0; i < jobs.length; i += 500) await boss.insert(queue, jobs.slice(i, i + 500));
  const insertMs = performance.now() - t;
  t = performance.now();
  let taken = 0;
  for (;;) {
    const got = await boss.fetch(queue, { batchSize: 8 });
    if (got.length === 0) break;
    taken += got.length;
    await boss.complete(
      queue,
      got.map((j) => j.id),
    );
  }
  const takeMs = performance.now() - t;
  if (taken !== N) throw new Error(`${queue}: took ${taken} of ${N} jobs`);
  return { insertMs, takeMs };
}

const results = new Map(variants.map((v) => [v.label, [] as { insertMs: number; takeMs: number }[]]));
for (let r = 0; r < ROUNDS; r++) for (const v of variants) results.get(v.label)!.push(await round(v, r));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `singleton keys on run queues: ${N} jobs, ${ROUNDS} alternating rounds, median per job (load ${(await import("node:os")).loadavg()[0]!.toFixed(1)})`,
);
console.log("variant                          insert µs/job   fetch+complete µs/job");
for (const [label, rs] of results) {
  const ins = (median(rs.map((x) => x.insertMs)) * 1000) / N;
  const take = (median(rs.map((x) => x.takeMs)) * 1000) / N;
  console.log(`${label.padEnd(32)} ${ins.toFixed(1).padStart(13)} ${take.toFixed(1).padStart(23)}`);
}

// What the exclusive queue refuses: a second live job of one key (a retry or wake job sent while the attempt
// before it is still active), silently, as a send that returns no id.
const q = "bench-sk-refuses";
await boss.createQueue(q, { policy: "exclusive", retryLimit: 0 });
const key = crypto.randomUUID();
await boss.send(q, { runId: key, attempt: 1 }, { singletonKey: key });
const [first] = await boss.fetch(q);
const retry = await boss.send(q, { runId: key, attempt: 2 }, { singletonKey: key });
console.log(
  `exclusive queue: attempt 1 active (${first ? "taken" : "not taken"}); its retry's send returned ${retry === null ? "null (refused)" : retry}`,
);
await boss.stop({ graceful: false, close: true });
