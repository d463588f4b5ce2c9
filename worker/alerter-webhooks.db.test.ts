import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../test/db";
import { insertAlertSchedule, insertRunRow } from "../test/alert-fixtures";
import { startWorker, type TestWorker } from "../test/worker-process";
import { startWebhookReceiver, type ReceivedRequest } from "../test/webhook-receiver";
import { waitFor } from "../test/wait-for";
import { verifyWebhookSignature } from "../core/alerts/webhook/sign-webhook";

const db = useTestDatabase("alert_webhooks");
let pool: pg.Pool;
let workers: TestWorker[] = [];

// Two real workers for the whole file: every test runs with both evaluating and delivering at once.
beforeAll(async () => {
  pool = testPool(db.url, 3);
  const env = {
    VIGIL_ALERT_EVAL_MS: "200",
    VIGIL_ALERT_WEBHOOK_SECRET: "test-secret",
    VIGIL_ALERT_WEBHOOK_BACKOFF_BASE_MS: "150",
    VIGIL_ALERT_WEBHOOK_BACKOFF_MAX_MS: "5000",
    VIGIL_ALERT_WEBHOOK_TIMEOUT_MS: "4000",
  };
  workers = [startWorker(db.url, env), startWorker(db.url, env)];
  await Promise.all(workers.map((w) => w.workerId()));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await pool.end();
});

async function clean(): Promise<void> {
  await pool.query("DELETE FROM alert_deliveries; DELETE FROM alerts; DELETE FROM runs; DELETE FROM schedules");
}

/** A missed occurrence on a disabled schedule (so the worker's planner leaves it alone) opens a "missed" alert. */
async function causeMissedAlert(webhookUrl: string | null = null, webhookFormat: "vigil" | "slack" = "vigil"): Promise<string> {
  const s = await insertAlertSchedule(pool, { enabled: false, webhookUrl });
  if (webhookFormat !== "vigil") await pool.query(`UPDATE schedules SET webhook_format = $2 WHERE id = $1`, [s.id, webhookFormat]);
  await insertRunRow(pool, s.id, { state: "missed", plannedAgoMs: 5000 });
  return s.id;
}

const signatureOk = (secret: string, r: ReceivedRequest) =>
  verifyWebhookSignature(
    secret,
    { signature: r.headers["x-vigil-signature"] as string, timestamp: r.headers["x-vigil-timestamp"] as string },
    r.body,
    { nowSeconds: Math.floor(Date.now() / 1000) },
  );

describe("alert webhooks (two real workers, local receivers)", () => {
  it("a receiver failing the first attempts gets the alert eventually: signed, with jittered, growing backoff between attempts", async () => {
    await clean();
    const receiver = await startWebhookReceiver((_req, nth) => (nth <= 4 ? 503 : 200));
    try {
      const scheduleId = await causeMissedAlert(receiver.url("/hook"));
      const delivery = await waitFor(
        "the webhook to be delivered",
        async () => (await pool.query(`SELECT * FROM alert_deliveries WHERE state = 'delivered'`)).rows[0],
        { timeoutMs: 30_000 },
      );
      // Normally 5; one more if a stalled event loop let an answered attempt hit its timeout (then it is logged as such).
      expect(delivery.attempts).toBeGreaterThanOrEqual(5);

      const reqs = receiver.received;
      expect(reqs).toHaveLength(delivery.attempts);
      for (const [i, r] of reqs.entries()) {
        expect(r.headers["x-vigil-attempt"]).toBe(String(i + 1));
        expect(r.headers["x-vigil-event"]).toBe("alert.opened");
        expect(signatureOk("test-secret", r)).toBe(true);
        expect(signatureOk("wrong-secret", r)).toBe(false);
      }
      const body = JSON.parse(reqs.at(-1)!.body);
      expect(body).toMatchObject({
        type: "alert.opened",
        attempt: delivery.attempts,
        alert: { kind: "missed", severity: "critical", scheduleId },
      });
      expect(body.alert.message).toMatch(/never started/);

      // Every attempt is recorded; the delay after each failure is drawn below a doubling ceiling.
      const log = delivery.log as {
        attempt: number;
        status?: number;
        retryInMs?: number;
        backoffCeilingMs?: number;
        startedAt: string;
        finishedAt: string;
        durationMs: number;
      }[];
      const failed = log.slice(0, -1);
      expect(log.map((e) => e.attempt)).toEqual(reqs.map((_r, i) => i + 1));
      expect(log.slice(0, 4).map((e) => e.status)).toEqual([503, 503, 503, 503]);
      expect(log.at(-1)!.status).toBe(200);
      expect(failed.map((e) => e.backoffCeilingMs)).toEqual(failed.map((_e, i) => Math.min(5000, 150 * 2 ** i)));
      for (const e of failed) {
        expect(e.retryInMs).toBeGreaterThanOrEqual(0);
        expect(e.retryInMs).toBeLessThan(e.backoffCeilingMs!);
      }
      expect(log.at(-1)!.retryInMs).toBeUndefined();
      // Full jitter: the drawn delays are not the ceilings (all four within 5 % of them: p = 0.05^4).
      expect(failed.some((e) => e.retryInMs! < 0.95 * e.backoffCeilingMs!)).toBe(true);
      // Each retry waited at least its drawn delay on the database clock (claimable only once next_attempt_at
      // passed), and the receiver saw the attempts at least that far apart. No upper bound: this machine is shared.
      log.slice(1).forEach((e, i) => {
        expect(Date.parse(e.startedAt) - Date.parse(log[i]!.finishedAt)).toBeGreaterThanOrEqual(log[i]!.retryInMs! - 2);
      });
      const gaps = reqs.slice(1).map((r, i) => r.at - reqs[i]!.at);
      gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(log[i]!.retryInMs!));
      console.log(
        `[webhook backoff] ceilings ${failed.map((e) => e.backoffCeilingMs).join("/")} ms, drawn ${failed.map((e) => e.retryInMs).join("/")} ms, ` +
          `receiver gaps ${gaps.map((g) => Math.round(g)).join("/")} ms, send durations ${log.map((e) => e.durationMs).join("/")} ms`,
      );
    } finally {
      await receiver.close();
    }
  });

  it("a receiver that never answers does not block other deliveries", async () => {
    await clean();
    const hanging = await startWebhookReceiver(() => "hang");
    const healthy = await startWebhookReceiver(() => 204);
    try {
      // Ten alerts for a receiver that never answers (more than a worker's 8 delivery slots), then one for a healthy one.
      for (let i = 0; i < 10; i++) await causeMissedAlert(hanging.url("/slow"));
      await waitFor("the silent receiver to be waited on", () => hanging.received.length > 0, { timeoutMs: 30_000 });
      const healthySchedule = await causeMissedAlert(healthy.url("/fast"));
      const fast = await waitFor(
        "the healthy delivery",
        async () =>
          (await pool.query(`SELECT log->0 AS attempt FROM alert_deliveries WHERE url LIKE '%/fast' AND state = 'delivered'`)).rows[0]
            ?.attempt,
        { timeoutMs: 30_000 },
      );
      expect(JSON.parse(healthy.received[0]!.body).alert.scheduleId).toBe(healthySchedule);
      // Proof of no blocking: an attempt to the silent receiver was open for the whole healthy attempt (it started
      // before and ended, at its 4 s timeout, after). Wait for those attempts to end and be recorded.
      const overlapping = await waitFor(
        "a silent attempt spanning the healthy one to be recorded",
        async () => {
          const { rows } = await pool.query(
            `SELECT e FROM alert_deliveries d, jsonb_array_elements(d.log) e
              WHERE d.url LIKE '%/slow' AND (e->>'startedAt')::timestamptz < $1::timestamptz AND (e->>'finishedAt')::timestamptz > $2::timestamptz`,
            [fast.startedAt, fast.finishedAt],
          );
          return rows[0]?.e;
        },
        { timeoutMs: 30_000 },
      );
      expect(overlapping.error).toBe("no answer within 4000 ms");
      // The silent receiver holds at most two slots per worker at a time: at no instant were more than 4 of its
      // attempts open, by the attempts' own start and end times. (A claim once counted only URLs already at the
      // limit as busy, so a worker with one send still being recorded took two more: 3 per worker, 5 seen here.)
      // Two full waves of its attempts (4 s each) are recorded before the count is taken.
      const attempts = await waitFor(
        "two waves of silent attempts to be recorded",
        async () => {
          const { rows } = await pool.query(
            `SELECT (e->>'startedAt')::timestamptz AS s, (e->>'finishedAt')::timestamptz AS f
               FROM alert_deliveries d, jsonb_array_elements(d.log) e WHERE d.url LIKE '%/slow'`,
          );
          return rows.length >= 8 ? rows : undefined;
        },
        { timeoutMs: 30_000 },
      );
      const edges = attempts
        .flatMap(
          (a: { s: Date; f: Date }) =>
            [
              [a.s.getTime(), 1],
              [a.f.getTime(), -1],
            ] as const,
        )
        .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let open = 0;
      let most = 0;
      for (const [, d] of edges) most = Math.max(most, (open += d));
      expect(most).toBeGreaterThanOrEqual(2);
      expect(most).toBeLessThanOrEqual(4);
      console.log(
        `[webhook isolation] healthy attempt took ${fast.durationMs} ms while a silent one stayed open ${overlapping.durationMs} ms; at most ${most} of its attempts open at once (${hanging.maxOpen()} requests as the receiver counted them)`,
      );
    } finally {
      await hanging.close();
      await healthy.close();
    }
  });

  it("two workers evaluating at once raise each alert once and send each delivery once", async () => {
    await clean();
    const receiver = await startWebhookReceiver(() => 200);
    try {
      const schedules: string[] = [];
      for (let i = 0; i < 10; i++) schedules.push(await causeMissedAlert(receiver.url("/all")));
      await waitFor(
        "10 deliveries recorded",
        async () => (await pool.query(`SELECT count(*)::int AS n FROM alert_deliveries WHERE state = 'delivered'`)).rows[0].n === 10,
        { timeoutMs: 30_000 },
      );
      // A claim that nothing more happens needs time: ~7 more evaluation passes per worker over the same causes.
      await new Promise((r) => setTimeout(r, 1500));
      const opened = workers.flatMap((w) => w.logs.filter((l) => l.includes("alert opened") && schedules.some((id) => l.includes(id))));
      expect(opened).toHaveLength(10);
      const { rows } = await pool.query(`SELECT dedupe_key, count(*)::int AS n FROM alerts GROUP BY dedupe_key`);
      expect(rows).toHaveLength(10);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(receiver.received).toHaveLength(10);
      expect(new Set(receiver.received.map((r) => r.headers["x-vigil-delivery"])).size).toBe(10);
      const { rows: d } = await pool.query(`SELECT count(*)::int AS n, max(attempts) AS max FROM alert_deliveries`);
      expect(d[0]).toEqual({ n: 10, max: 1 });
    } finally {
      await receiver.close();
    }
  });

  it("a schedule that chose the Slack-style format gets a text message; the retry sends the same text", async () => {
    await clean();
    const receiver = await startWebhookReceiver((_req, nth) => (nth === 1 ? 500 : 200));
    try {
      const scheduleId = await causeMissedAlert(receiver.url("/slack"), "slack");
      const { rows: s } = await pool.query(`SELECT name FROM schedules WHERE id = $1`, [scheduleId]);
      await waitFor(
        "the Slack-style delivery",
        async () => (await pool.query(`SELECT 1 FROM alert_deliveries WHERE state = 'delivered'`)).rowCount === 1,
        { timeoutMs: 30_000 },
      );
      expect(receiver.received.length).toBeGreaterThanOrEqual(2);
      const bodies = receiver.received.map((r) => JSON.parse(r.body));
      for (const b of bodies) {
        expect(Object.keys(b)).toEqual(["text"]);
        expect(b.text).toMatch(new RegExp(`^🔴 Missed opened — ${s[0].name}: .*never started.* \\(critical\\)$`));
      }
      expect(bodies[1]).toEqual(bodies[0]);
      // Still signed like every Vigil webhook.
      expect(signatureOk("test-secret", receiver.received[0]!)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
