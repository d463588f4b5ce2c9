import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase, usePoolAndBoss } from "../test/db";
import { startWorker, type TestWorker } from "../test/worker-process";
import { waitFor } from "../test/wait-for";
import { createRun, insertSchedule, runState, waitForWorkerReady } from "../test/run-fixtures";
import { insertAlertSchedule, insertRunRow } from "../test/alert-fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "../test/webhook-receiver";

// Real worker runs of http.request and real alert webhook deliveries against the egress policy. Everything listens
// on this machine, so 127.0.0.2 (allowed for these workers) stands in for a public service: what a public address
// may do, it does, and what it redirects into is checked like any target.
const db = useTestDatabase("egress_policy");
const h = usePoolAndBoss(db);
const ALERT_ENV = {
  VIGIL_ALERT_EVAL_MS: "200",
  VIGIL_ALERT_WEBHOOK_BACKOFF_BASE_MS: "150",
  VIGIL_ALERT_WEBHOOK_BACKOFF_MAX_MS: "1000",
  VIGIL_ALERT_WEBHOOK_MAX_ATTEMPTS: "100",
};
let worker: TestWorker;
/** The internal service nothing may reach unless allowed (127.0.0.1). */
let internal: WebhookReceiver;
/** The same, on ::1. */
let internal6: { port: number; connections: () => number; close: () => Promise<void> };
/** The stand-in for a public service (127.0.0.2), redirecting where its path says. */
let publicSite: { url: (path: string) => string; close: () => Promise<void> };

function listen(host: string, handler: http.RequestListener) {
  const server = http.createServer(handler);
  let connections = 0;
  server.on("connection", () => connections++);
  return new Promise<{ port: number; connections: () => number; close: () => Promise<void> }>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        connections: () => connections,
        close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
      }),
    );
  });
}

beforeAll(async () => {
  internal = await startWebhookReceiver(() => 200);
  internal6 = await listen("::1", (_req, res) => res.end("internal"));
  const port = new URL(internal.url("/")).port;
  const site = await listen("127.0.0.2", (req, res) => {
    const to: Record<string, string> = {
      "/to-loopback": `http://127.0.0.1:${port}/secret`,
      "/to-localhost": `http://localhost:${port}/secret`,
      "/to-metadata": "http://169.254.169.254/latest/meta-data/",
    };
    const location = to[req.url ?? ""];
    if (location) res.writeHead(302, { location }).end();
    else res.writeHead(200, { "x-vigil-records": "3" }).end("public");
  });
  publicSite = { url: (path) => `http://127.0.0.2:${site.port}${path}`, close: site.close };
  worker = startWorker(db.url, { VIGIL_EGRESS_ALLOW: "127.0.0.2", ...ALERT_ENV });
  await waitForWorkerReady(worker);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await internal?.close();
  await internal6?.close();
  await publicSite?.close();
});

async function call(url: string) {
  const schedule = await insertSchedule(h.pool, { handler: "http.request", payload: { url } });
  const id = await createRun(h.pool, h.boss, schedule);
  return waitFor(
    `run ${id} to end`,
    async () => {
      const r = await runState(h.pool, id);
      return ["succeeded", "failed", "hollow", "timed_out", "cancelled"].includes(r.state) ? r : null;
    },
    { timeoutMs: 20_000 },
  );
}

describe("egress policy: http.request refuses internal addresses by default", () => {
  const port = () => new URL(internal.url("/")).port;
  it.each([
    [
      "127.0.0.1",
      () => `http://127.0.0.1:${port()}/`,
      /^EgressRefusedError: egress refused: 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\)/,
    ],
    ["[::1]", () => `http://[::1]:${internal6.port}/`, /^EgressRefusedError: egress refused: ::1 is a loopback address \(::1\/128\)/],
    [
      "0.0.0.0",
      () => `http://0.0.0.0:${port()}/`,
      /^EgressRefusedError: egress refused: 0\.0\.0\.0 is an unspecified address \(0\.0\.0\.0\/8\)/,
    ],
    ["2130706433", () => `http://2130706433:${port()}/`, /^EgressRefusedError: egress refused: 127\.0\.0\.1 is a loopback address/],
    ["0x7f000001", () => `http://0x7f000001:${port()}/`, /^EgressRefusedError: egress refused: 127\.0\.0\.1 is a loopback address/],
    [
      "[::ffff:127.0.0.1]",
      () => `http://[::ffff:127.0.0.1]:${port()}/`,
      /is a loopback address \(127\.0\.0\.0\/8, carried in the IPv4-mapped/,
    ],
    [
      "169.254.169.254",
      () => "http://169.254.169.254/latest/meta-data/",
      /^EgressRefusedError: egress refused: 169\.254\.169\.254 is a link-local address/,
    ],
    [
      "localhost",
      () => `http://localhost:${port()}/`,
      /^EgressRefusedError: egress refused: localhost \(resolved to 127\.0\.0\.1\) is a loopback address/,
    ],
    [
      "a redirect into 127.0.0.1",
      () => publicSite.url("/to-loopback"),
      /^EgressRefusedError: egress refused: 127\.0\.0\.1 is a loopback address/,
    ],
    [
      "a redirect into localhost",
      () => publicSite.url("/to-localhost"),
      /^EgressRefusedError: egress refused: localhost \(resolved to 127\.0\.0\.1\)/,
    ],
    [
      "a redirect into 169.254.169.254",
      () => publicSite.url("/to-metadata"),
      /^EgressRefusedError: egress refused: 169\.254\.169\.254 is a link-local/,
    ],
  ])("%s: the run fails with the reason and the setting that would allow it, and no connection is made", async (_name, url, reason) => {
    const before = { v4: internal.connections(), v6: internal6.connections() };
    const run = await call(url());
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(reason);
    expect(run.error).toContain("add ");
    expect(run.error).toContain("to VIGIL_EGRESS_ALLOW to allow it");
    expect({ v4: internal.connections(), v6: internal6.connections() }).toEqual(before);
    expect(internal.received).toHaveLength(0);
  });

  it("calls an allow-listed address (VIGIL_EGRESS_ALLOW=127.0.0.2)", async () => {
    const run = await call(publicSite.url("/ok"));
    expect(run).toMatchObject({ state: "succeeded", records: 3 });
  });
});

describe("egress policy: alert webhooks", () => {
  it("refuses a webhook to loopback by default (the attempt records why) and delivers it once loopback is allowed", async () => {
    const s = await insertAlertSchedule(h.pool, { enabled: false, webhookUrl: internal.url("/hook") });
    await insertRunRow(h.pool, s.id, { state: "missed", plannedAgoMs: 5000 });
    const refused = await waitFor(
      "a refused delivery attempt",
      async () => (await h.pool.query(`SELECT * FROM alert_deliveries WHERE last_error IS NOT NULL`)).rows[0],
      { timeoutMs: 30_000 },
    );
    expect(refused.state).not.toBe("delivered");
    expect(refused.last_error).toMatch(/^egress refused: 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\).*VIGIL_EGRESS_ALLOW/);
    expect(internal.connections()).toBe(0);
    expect(internal.received).toHaveLength(0);

    await worker.stop();
    worker = startWorker(db.url, { VIGIL_EGRESS_ALLOW: "127.0.0.1, 127.0.0.2", ...ALERT_ENV });
    const delivered = await waitFor(
      "the delivery once loopback is allowed",
      async () => (await h.pool.query(`SELECT * FROM alert_deliveries WHERE state = 'delivered'`)).rows[0],
      { timeoutMs: 60_000 },
    );
    expect(delivered.id).toBe(refused.id);
    expect(internal.received.filter((r) => r.path === "/hook")).toHaveLength(1);
  }, 90_000);
});
