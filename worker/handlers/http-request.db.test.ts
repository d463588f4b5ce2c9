import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../../test/db";
import { startWorker, type TestWorker } from "../../test/worker-process";
import { waitFor } from "../../test/wait-for";
import { createRun, insertSchedule, runState, waitForWorkerReady, type ScheduleFixture } from "../../test/run-fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "../../test/webhook-receiver";
import { verifyWebhookSignature } from "../../core/alerts/webhook/sign-webhook";

const db = useTestDatabase("http_request");
const h = usePoolAndBoss(db);
const SIGNING_KEY = "payouts-signing-key-90210";
let worker: TestWorker;
let service: WebhookReceiver;

beforeAll(async () => {
  service = await startWebhookReceiver((req, nth) => {
    const json = (body: unknown) => ({
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(body),
    });
    switch (req.path) {
      case "/count-header-0":
        return { status: 200, headers: { "x-vigil-records": "0" } };
      case "/count-body-7":
        return json({ ok: true, records: 7 });
      case "/count-body-0":
        return json({ records: 0 });
      case "/count-bad":
        return { status: 200, headers: { "x-vigil-records": "many" } };
      case "/fail-once":
        return nth === 1 ? 503 : 200;
      default:
        return 200;
    }
  });
  worker = startWorker(db.url, { VIGIL_WORKER_CONCURRENCY: "3", PAYOUTS_SIGNING_KEY: SIGNING_KEY });
  await waitForWorkerReady(worker);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await service?.close();
});

const ended = (id: string) =>
  waitFor(
    `run ${id} to end`,
    async () => {
      const r = await runState(h.pool, id);
      return ["succeeded", "failed", "hollow", "timed_out", "cancelled"].includes(r.state) ? r : null;
    },
    { timeoutMs: 20_000 },
  );

async function call(payload: Record<string, unknown>, s: Partial<ScheduleFixture> = {}) {
  const schedule = await insertSchedule(h.pool, { handler: "http.request", payload, ...s });
  const id = await createRun(h.pool, h.boss, schedule);
  return { id, run: await ended(id) };
}

const requestsTo = (path: string) => service.received.filter((r) => r.path === path);

describe("http.request", () => {
  it("sends the run's Idempotency-Key, run id and attempt with the payload's own headers", async () => {
    const { id, run } = await call({ url: service.url("/plain"), headers: { "X-Team": "payments" } });
    expect(run.state).toBe("succeeded");
    expect(run.records).toBe(1);
    const [req] = requestsTo("/plain");
    expect(req!.headers).toMatchObject({
      "idempotency-key": run.idempotency_key,
      "x-vigil-run-id": id,
      "x-vigil-attempt": "1",
      "x-team": "payments",
    });
    expect(req!.headers["x-vigil-signature"]).toBeUndefined();
  });

  it("keeps the same Idempotency-Key on the retry of a failed call", async () => {
    const { run } = await call({ url: service.url("/fail-once") }, { retryMaxAttempts: 2, retryBaseSeconds: 1, retryMaxSeconds: 1 });
    expect(run.state).toBe("succeeded");
    const reqs = requestsTo("/fail-once");
    expect(reqs.map((r) => r.headers["x-vigil-attempt"])).toEqual(["1", "2"]);
    expect(new Set(reqs.map((r) => r.headers["idempotency-key"]))).toEqual(new Set([run.idempotency_key]));
  });

  it("signs <timestamp>.<body> with the key from the worker variable named in the payload, and never shows the key", async () => {
    const body = JSON.stringify({ payout: 42 });
    const { id, run } = await call({
      method: "POST",
      url: service.url("/signed"),
      body,
      headers: { "content-type": "application/json" },
      signing: { keyEnv: "PAYOUTS_SIGNING_KEY" },
    });
    expect(run.state).toBe("succeeded");
    const [req] = requestsTo("/signed");
    expect(req!.body).toBe(body);
    expect(req!.headers["x-vigil-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    const { rows } = await h.pool.query(`SELECT extract(epoch FROM clock_timestamp())::float8 AS s`);
    const headers = { signature: req!.headers["x-vigil-signature"] as string, timestamp: req!.headers["x-vigil-timestamp"] as string };
    expect(verifyWebhookSignature(SIGNING_KEY, headers, body, { nowSeconds: rows[0].s, toleranceSeconds: 60 })).toBe(true);
    expect(verifyWebhookSignature("another-key", headers, body, { nowSeconds: rows[0].s })).toBe(false);
    const stored = await h.pool.query(
      `SELECT (SELECT json_agg(l) FROM run_logs l WHERE run_id = $1)::text AS logs, (SELECT json_agg(e) FROM run_events e WHERE run_id = $1)::text AS events,
              (SELECT row_to_json(r) FROM runs r WHERE id = $1)::text AS run`,
      [id],
    );
    expect(JSON.stringify(stored.rows[0])).not.toContain(SIGNING_KEY);
    expect(worker.logs.join("\n")).not.toContain(SIGNING_KEY);
  });

  it("fails the attempt clearly when the signing key's variable is not set on the worker", async () => {
    const { run } = await call({ url: service.url("/unsigned-never"), signing: { keyEnv: "NO_SUCH_SIGNING_KEY" } });
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/signing.keyEnv names NO_SUCH_SIGNING_KEY, which is not set/);
    expect(requestsTo("/unsigned-never")).toHaveLength(0);
  });

  it("takes the record count from X-Vigil-Records or a JSON body's records, which drives hollow detection", async () => {
    expect((await call({ url: service.url("/count-header-0") }, { expectRecordsMin: 1 })).run).toMatchObject({
      state: "hollow",
      records: 0,
    });
    expect((await call({ url: service.url("/count-body-0") }, { expectRecordsMin: 1 })).run).toMatchObject({ state: "hollow", records: 0 });
    expect((await call({ url: service.url("/count-body-7") }, { expectRecordsMin: 1 })).run).toMatchObject({
      state: "succeeded",
      records: 7,
    });
    // Neither: the call itself counts as 1 record (as before).
    expect((await call({ url: service.url("/plain") }, { expectRecordsMin: 1 })).run).toMatchObject({ state: "succeeded", records: 1 });
    const bad = await call({ url: service.url("/count-bad") });
    expect(bad.run.state).toBe("failed");
    expect(bad.run.error).toMatch(/X-Vigil-Records header must be a whole number/);
  });
});
