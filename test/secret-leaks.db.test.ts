// Secrets nobody can read back. A value planted in the secret store reaches the one place it is meant for (a
// real HTTP server receives it in its Authorization header, so the worker really resolved the reference), and
// nowhere else: every API route (discovered from the file tree) called as viewer, operator and admin, the
// runs' handler logs (the test handler logs the value, returns it and throws it), the worker's own log lines,
// /api/metrics, the audit CSV export and every table of the database — zero occurrences of the value.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { createTestToken } from "./auth";
import { callRoute, readRouteBody } from "./call-route";
import { waitFor } from "./wait-for";
import { startWarmWorker } from "./warm-worker";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";
import type { TestWorker } from "./worker-process";
import { getPool } from "../core/db/pool";
import { MASKED } from "../core/secrets/mask-credentials";
import { secretKeyId } from "../core/secrets/secret-crypto";
import * as schedulesRoute from "../app/api/schedules/route";
import * as scheduleRoute from "../app/api/schedules/[id]/route";
import * as triggerRoute from "../app/api/schedules/[id]/trigger/route";
import * as secretsRoute from "../app/api/secrets/route";
import * as secretRoute from "../app/api/secrets/[name]/route";
import * as runRoute from "../app/api/runs/[id]/route";

// Before anything reads the environment (core/env.ts parses it once, lazily): the console's key in this process.
const SECRET_KEY = crypto.randomBytes(32).toString("base64");
process.env.VIGIL_SECRET_KEY = SECRET_KEY;
const PLANTED = `planted-${crypto.randomBytes(16).toString("hex")}`;
const VALUE = `Bearer ${PLANTED}`;

const db = useTestDatabase("secret_leaks");
let receiver: WebhookReceiver;
let worker: TestWorker;
let keylessWorker: TestWorker | undefined;
let jobs: string;
let viewer = "";
let operator = "";
let admin = "";

// A handler that does everything a careless handler could with a secret: logs it in the message, in fields
// (as a value and as a key), returns it in its summary, and (when asked) throws it in its error message or
// crashes its thread with it.
const LEAKY = `
import { defineHandler, z } from "vigil/sdk";
export const leaky = defineHandler({
  name: "leak.echo",
  description: "logs, returns and throws the token it is given",
  payload: z.strictObject({ token: z.string(), fail: z.boolean().default(false), crash: z.boolean().default(false) }),
  async run(p, ctx) {
    if (p.crash) {
      // An uncaught error outside the handler's promise kills its thread.
      setTimeout(() => { throw new Error("thread crashed holding " + p.token); }, 0);
      await new Promise((r) => setTimeout(r, 10_000));
    }
    ctx.log("info", "calling the bank with " + p.token, { token: p.token, headers: { Authorization: p.token }, [p.token]: [p.token] });
    if (p.fail) throw new Error("the bank refused " + p.token);
    return { records: 1, summary: "used " + p.token };
  },
});
export const keyless = defineHandler({
  name: "leak.keyless",
  description: "served only by a worker started without VIGIL_SECRET_KEY",
  payload: z.strictObject({ token: z.string() }),
  async run() {
    return { records: 1 };
  },
});
`;

interface Endpoint {
  key: string;
  method: string;
  route: string;
  file: string;
}

function discover(): Endpoint[] {
  const root = path.resolve(import.meta.dirname, "..");
  const api = path.join(root, "app", "api");
  const out: Endpoint[] = [];
  const files = fs
    .readdirSync(api, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name === "route.ts")
    .map((d) => path.join(d.parentPath, d.name))
    .sort();
  for (const file of files) {
    const route = `/${path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep).join("/")}`;
    const src = fs.readFileSync(file, "utf8");
    for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      if (new RegExp(`export const ${m}\\b`).test(src)) out.push({ key: `${m} ${route}`, method: m, route, file });
    }
  }
  return out;
}

type RouteHandler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Calls a route in-process and answers its raw text (CSV and Prometheus answers are not JSON). */
async function callText(
  handler: RouteHandler,
  opts: { method: string; path: string; token: string; params: Record<string, string>; body?: unknown },
) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token}` };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const req = new NextRequest(new URL(opts.path, "http://localhost:3000"), { method: opts.method, headers, body });
  const res = await handler(req, { params: Promise.resolve(opts.params) });
  return { status: res.status, text: await readRouteBody(res) };
}

async function waitForRun(runId: string): Promise<{ state: string; error: string | null; result: unknown }> {
  return waitFor(
    `run ${runId} to finish`,
    async () => {
      const { rows } = await getPool().query(`SELECT state, error, result FROM runs WHERE id = $1 AND finished_at IS NOT NULL`, [runId]);
      return rows[0];
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  );
}

/** The tag BANK_API_TOKEN's access rule allows (a schedule without it may not refer to the secret). */
const ALLOWED = { tags: ["leak-test"] };

async function createAndTrigger(body: Record<string, unknown>): Promise<{ scheduleId: string; runId: string }> {
  const created = await callRoute(schedulesRoute.POST, { method: "POST", token: operator, body: { tags: ALLOWED.tags, ...body } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const scheduleId = created.body.schedule.id as string;
  const t = await callRoute(triggerRoute.POST, {
    method: "POST",
    token: operator,
    params: { id: scheduleId },
    body: { reason: "leak test" },
  });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  return { scheduleId, runId: t.body.runId as string };
}

const later = { kind: "once", at: "2099-01-01T00:00:00Z" };

// The worker may take its whole 180 s warm-up on a loaded machine: the hook waits as long.
beforeAll(async () => {
  viewer = await createTestToken(db.url, "viewer");
  operator = await createTestToken(db.url, "operator");
  admin = await createTestToken(db.url, "admin");
  receiver = await startWebhookReceiver(() => 200);
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "leak-jobs-"));
  fs.writeFileSync(path.join(jobs, "leaky.ts"), LEAKY);
  worker = await startWarmWorker(db.url, { VIGIL_SECRET_KEY: SECRET_KEY, VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, [
    "--handlers",
    jobs,
    "--serve",
    "leak.echo,http.request",
  ]);
}, 200_000);

afterAll(async () => {
  await worker?.stop();
  await keylessWorker?.stop();
  await receiver?.close();
  if (jobs) fs.rmSync(jobs, { recursive: true, force: true });
});

describe("secrets", () => {
  it("are stored encrypted, listed without values, and referenced payloads are checked on save", async () => {
    const set = await callRoute(secretRoute.PUT, {
      method: "PUT",
      token: admin,
      params: { name: "BANK_API_TOKEN" },
      body: { value: VALUE, access: { tags: ALLOWED.tags } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ replaced: false, secret: { name: "BANK_API_TOKEN" } });
    expect(JSON.stringify(set.body)).not.toContain(PLANTED);
    // Only admins manage them.
    expect(
      (await callRoute(secretRoute.PUT, { method: "PUT", token: operator, params: { name: "X_TOKEN" }, body: { value: "abcdef" } })).status,
    ).toBe(403);
    expect((await callRoute(secretsRoute.GET, { token: operator })).status).toBe(403);

    const { rows: audit } = await getPool().query(
      `SELECT actor, after FROM audit_events WHERE action = 'secret.set' AND target_id = 'BANK_API_TOKEN'`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].after.summary).toBe(`secret BANK_API_TOKEN set by ${audit[0].actor}`);
    const { rows } = await getPool().query(`SELECT ciphertext, iv FROM secrets WHERE name = 'BANK_API_TOKEN'`);
    expect(rows[0].ciphertext.toString("utf8")).not.toContain(PLANTED);
    expect(rows[0].iv).toHaveLength(12);

    // A reference to a secret that does not exist: 422 naming the field.
    const missing = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: {
        name: "bank-missing",
        handler: "http.request",
        trigger: later,
        payload: { url: receiver.url("/bank"), headers: { Authorization: { $secret: "NO_SUCH_SECRET" } } },
      },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.fields["payload.headers.Authorization"]).toMatch(/NO_SUCH_SECRET does not exist/);
    // A reference stands for a string: a number field refuses it.
    const wrongType = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: {
        name: "bank-wrong",
        handler: "http.request",
        trigger: later,
        payload: { url: receiver.url("/bank"), timeoutMs: { $secret: "BANK_API_TOKEN" } },
      },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.fields["payload.timeoutMs"]).toMatch(/secret reference stands for a string/);
    // An operator cannot read secrets, nor borrow one from a schedule its rule does not allow (to print it).
    const borrowed = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: { name: "bank-borrow", handler: "leak.echo", trigger: later, payload: { token: { $secret: "BANK_API_TOKEN" } } },
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body.error.code).toBe("secret_not_allowed");
    expect(borrowed.body.error.message).toMatch(/BANK_API_TOKEN may not be used by schedule bank-borrow.*schedules tagged leak-test/);
  });

  it("reach the remote service, and nothing else: no API answer, handler log, worker log, metric, export or table holds the value", async () => {
    const http = await createAndTrigger({
      name: "bank-call",
      handler: "http.request",
      trigger: later,
      payload: { method: "POST", url: receiver.url("/bank"), headers: { Authorization: { $secret: "BANK_API_TOKEN" } }, body: "{}" },
    });
    const ok = await createAndTrigger({
      name: "leak-ok",
      handler: "leak.echo",
      trigger: later,
      payload: { token: { $secret: "BANK_API_TOKEN" } },
    });
    const bad = await createAndTrigger({
      name: "leak-fail",
      handler: "leak.echo",
      trigger: later,
      retryMaxAttempts: 1,
      payload: { token: { $secret: "BANK_API_TOKEN" }, fail: true },
    });

    const crash = await createAndTrigger({
      name: "leak-crash",
      handler: "leak.echo",
      trigger: later,
      retryMaxAttempts: 1,
      payload: { token: { $secret: "BANK_API_TOKEN" }, crash: true },
    });

    const [httpRun, okRun, badRun, crashRun] = await Promise.all([
      waitForRun(http.runId),
      waitForRun(ok.runId),
      waitForRun(bad.runId),
      waitForRun(crash.runId),
    ]);
    // The real value went out, in the header: the worker resolved the reference.
    expect(httpRun.state).toBe("succeeded");
    expect(receiver.received.find((r) => r.path === "/bank")?.headers.authorization).toBe(VALUE);
    // The handler's result and error are stored redacted.
    expect(okRun).toMatchObject({ state: "succeeded" });
    expect(JSON.stringify(okRun.result)).toContain("used [secret BANK_API_TOKEN]");
    expect(badRun.state).toBe("failed");
    expect(badRun.error).toContain("the bank refused [secret BANK_API_TOKEN]");
    expect(crashRun.state).toBe("failed");
    expect(crashRun.error).toContain("thread crashed holding [secret BANK_API_TOKEN]");

    // The run page's answer carries the handler's log line, redacted (so the scan below is not vacuous).
    const trace = await callRoute(runRoute.GET, { token: viewer, params: { id: ok.runId } });
    expect(trace.body.logs.map((l: { message: string }) => l.message)).toContain("calling the bank with [secret BANK_API_TOKEN]");
    expect(trace.body.run.payload).toEqual({ token: { $secret: "BANK_API_TOKEN" } });

    // Every route, every method, as viewer, operator and admin: reads first, then mutations (with an empty body).
    const endpoints = discover();
    expect(endpoints.length).toBeGreaterThan(20);
    const paramsFor = (route: string): Record<string, string> => {
      if (route.startsWith("/api/schedules/[id]")) return { id: http.scheduleId };
      if (route.startsWith("/api/runs/[id]")) return { id: ok.runId };
      if (route.startsWith("/api/secrets/[name]")) return { name: "BANK_API_TOKEN" };
      return Object.fromEntries([...route.matchAll(/\[(\w+)\]/g)].map((m) => [m[1]!, crypto.randomUUID()]));
    };
    const queries: Record<string, string[]> = {
      "/api/runs": ["", `?scheduleId=${ok.scheduleId}`, "?state=failed"],
      "/api/audit": ["", "?q=secret", "?target=secret"],
      "/api/audit/export.csv": [""],
      "/api/timeline": ["", `?scheduleId=${ok.scheduleId}`],
      "/api/schedules": ["", "?q=leak"],
    };
    const hits: string[] = [];
    let calls = 0;
    const order = [...endpoints.filter((e) => e.method === "GET"), ...endpoints.filter((e) => e.method !== "GET")];
    for (const role of ["viewer", "operator", "admin"] as const) {
      const token = { viewer, operator, admin }[role];
      for (const e of order) {
        // Leave the admin's own token alive for the rest of the walk.
        if (e.key === "POST /api/auth/logout") continue;
        const mod = (await import(e.file)) as Record<string, RouteHandler>;
        const params = paramsFor(e.route);
        const concrete = e.route.replace(/\[(\w+)\]/g, (_, k: string) => params[k]!);
        for (const q of e.method === "GET" ? (queries[e.route] ?? [""]) : [""]) {
          const res = await callText(mod[e.method]!, {
            method: e.method,
            path: concrete + q,
            token,
            params,
            body: e.method === "GET" || e.method === "DELETE" ? undefined : {},
          });
          calls++;
          expect(res.status, `${role} ${e.key}${q}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
          if (res.text.includes(PLANTED)) hits.push(`${role} ${e.key}${q} → ${res.status}`);
        }
      }
    }
    expect(calls).toBeGreaterThan(60);
    expect(hits).toEqual([]);

    // The worker's own log lines: the handler's lines are printed there too, redacted.
    await waitFor(
      "the handler's log line in the worker's output",
      () => worker.logs.some((l) => l.includes("calling the bank with [secret BANK_API_TOKEN]")),
      { timeoutMs: 10_000 },
    );
    expect(worker.logs.filter((l) => l.includes(PLANTED))).toEqual([]);

    // Every table, public and pg-boss's: no row's text holds the value.
    const { rows: tables } = await getPool().query(
      `SELECT schemaname, relname FROM pg_stat_user_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    const found: string[] = [];
    for (const t of tables) {
      const { rows } = await getPool().query(
        `SELECT count(*)::int AS n FROM ${t.schemaname === "public" ? "" : `"${t.schemaname}".`}"${t.relname}" x WHERE x::text LIKE $1`,
        [`%${PLANTED}%`],
      );
      if (rows[0].n > 0) found.push(`${t.schemaname}.${t.relname}: ${rows[0].n}`);
    }
    expect(tables.length).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });

  it("missing at run time fail the attempt with an error naming the secret; a secret in use cannot be deleted", async () => {
    await callRoute(secretRoute.PUT, {
      method: "PUT",
      token: admin,
      params: { name: "SHORT_LIVED" },
      body: { value: "short-lived-value", access: { tags: ALLOWED.tags } },
    });
    const del = await callRoute(secretRoute.DELETE, { method: "DELETE", token: admin, params: { name: "BANK_API_TOKEN" } });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toMatch(/leak-ok/);
    const created = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: {
        name: "leak-gone",
        tags: ALLOWED.tags,
        handler: "leak.echo",
        trigger: later,
        retryMaxAttempts: 1,
        payload: { token: { $secret: "SHORT_LIVED" } },
      },
    });
    expect(created.status).toBe(200);
    // Removed behind the API's back (e.g. restored from an older backup): the run finds it missing.
    await getPool().query(`DELETE FROM secrets WHERE name = 'SHORT_LIVED'`);
    const t = await callRoute(triggerRoute.POST, {
      method: "POST",
      token: operator,
      params: { id: created.body.schedule.id },
      body: { reason: "leak test" },
    });
    const run = await waitForRun(t.body.runId);
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/Secret SHORT_LIVED does not exist \(referred to at payload token\)/);
  });

  it("a worker started without VIGIL_SECRET_KEY fails the attempt saying so", async () => {
    keylessWorker = await startWarmWorker(db.url, { VIGIL_SECRET_KEY: "", VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, [
      "--handlers",
      jobs,
      "--serve",
      "leak.keyless",
    ]);
    const { runId } = await createAndTrigger({
      name: "leak-keyless",
      handler: "leak.keyless",
      trigger: later,
      retryMaxAttempts: 1,
      payload: { token: { $secret: "BANK_API_TOKEN" } },
    });
    const run = await waitForRun(runId);
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/^VIGIL_SECRET_KEY is not set: secrets cannot be stored or resolved without it/);
    expect(keylessWorker.logs.filter((l) => l.includes(PLANTED))).toEqual([]);
  });

  it("rotate: a worker with a new key and the old one as previous re-encrypts every value, and runs keep resolving", async () => {
    await keylessWorker?.stop();
    keylessWorker = undefined;
    const newKey = crypto.randomBytes(32);
    const rotating = await startWarmWorker(
      db.url,
      { VIGIL_SECRET_KEY: newKey.toString("base64"), VIGIL_SECRET_KEY_PREVIOUS: SECRET_KEY, VIGIL_PLAN_AHEAD_SECONDS: "30" },
      180_000,
      ["--handlers", jobs, "--serve", "leak.keyless"],
    );
    try {
      const { rows } = await getPool().query(`SELECT name, key_id FROM secrets ORDER BY name`);
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.key_id))).toEqual(new Set([secretKeyId(newKey)]));
      const { rows: audit } = await getPool().query(
        `SELECT target_id, after FROM audit_events WHERE action = 'secret.reencrypt' ORDER BY id`,
      );
      expect(audit.map((a) => a.target_id)).toEqual(rows.map((r) => r.name));
      const { runId } = await createAndTrigger({
        name: "leak-rotated",
        handler: "leak.keyless",
        trigger: later,
        retryMaxAttempts: 1,
        payload: { token: { $secret: "BANK_API_TOKEN" } },
      });
      expect((await waitForRun(runId)).state).toBe("succeeded");
      expect(rotating.logs.some((l) => l.includes("secrets re-encrypted under the current key"))).toBe(true);
      expect(rotating.logs.filter((l) => l.includes(PLANTED))).toEqual([]);
    } finally {
      await rotating.stop();
    }
  });

  it("plain credentials written before secrets existed are masked for viewers and in the audit trail; an operator's save keeps them", async () => {
    const plain = `plain-${crypto.randomBytes(8).toString("hex")}`;
    const created = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: {
        name: "legacy-call",
        handler: "http.request",
        trigger: later,
        payload: { url: receiver.url("/legacy"), headers: { Authorization: `Bearer ${plain}`, Accept: "text/plain" } },
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.warnings[0]).toMatch(/payload.headers.Authorization looks like a credential.*\$secret/);
    const id = created.body.schedule.id as string;

    const asViewer = await callRoute(scheduleRoute.GET, { token: viewer, params: { id } });
    expect(asViewer.body.schedule.payload.headers).toEqual({ Authorization: MASKED, Accept: "text/plain" });
    const list = await callRoute(schedulesRoute.GET, { token: viewer, path: "/api/schedules?q=legacy" });
    expect(JSON.stringify(list.body)).not.toContain(plain);
    const asOperator = await callRoute(scheduleRoute.GET, { token: operator, params: { id } });
    expect(asOperator.body.schedule.payload.headers.Authorization).toBe(`Bearer ${plain}`);

    // The operator saves what a viewer would have seen (masked): the stored value is kept.
    const patched = await callRoute(scheduleRoute.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id },
      body: { revision: asOperator.body.schedule.revision, description: "now described", payload: asViewer.body.schedule.payload },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.schedule.payload.headers.Authorization).toBe(`Bearer ${plain}`);
    // A new schedule cannot be saved with a masked value.
    const copy = await callRoute(schedulesRoute.POST, {
      method: "POST",
      token: operator,
      body: { name: "legacy-copy", handler: "http.request", trigger: later, payload: asViewer.body.schedule.payload },
    });
    expect(copy.status).toBe(422);
    expect(copy.body.error.fields["payload.headers.Authorization"]).toMatch(/masked value/);

    const { rows } = await getPool().query(
      `SELECT count(*)::int AS n FROM audit_events WHERE before::text LIKE $1 OR after::text LIKE $1`,
      [`%${plain}%`],
    );
    expect(rows[0].n).toBe(0);
    const { rows: created2 } = await getPool().query(`SELECT after FROM audit_events WHERE action = 'schedule.create' AND target_id = $1`, [
      id,
    ]);
    expect(created2[0].after.payload.headers.Authorization).toBe(MASKED);
  });
});
