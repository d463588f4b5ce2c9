// Deliveries to trigger URLs through the real routes: a good signature creates one run (kind manual, actor the
// URL's label, the sender's address on the audit row); each refusal answers the status and code a sender can act
// on, creates no run and writes exactly one audit row (refused, with the address); the secret appears only in the
// answers that create or rotate it — not in a listing, an audit row or any other table.
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/db";
import { callRoute } from "../../../test/call-route";
import { createTestToken } from "../../../test/auth";
import { insertSchedule } from "../../../test/run-fixtures";
import { getPool } from "../../../core/db/pool";
import { signDelivery } from "../../../core/trigger-urls/verify-delivery-signature";
import * as hookRoute from "./[id]/route";
import * as hooksRoute from "../schedules/[id]/hooks/route";
import * as hookIdRoute from "../schedules/[id]/hooks/[hookId]/route";
import * as rotateRoute from "../schedules/[id]/hooks/[hookId]/rotate/route";

// Before anything reads the environment: the console's secret store key in this process.
process.env.VIGIL_SECRET_KEY = crypto.randomBytes(32).toString("base64");

const db = useTestDatabase("trigger_urls");
let operator = "";
let viewer = "";
let scheduleId = "";
const secretsSeen: string[] = [];

async function createHook(body: Record<string, unknown>, schedule = scheduleId) {
  const res = await callRoute(hooksRoute.POST, {
    method: "POST",
    path: `/api/schedules/${schedule}/hooks`,
    params: { id: schedule },
    token: operator,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  secretsSeen.push(res.body.secret);
  return res.body as { triggerUrl: { id: string; path: string; label: string }; secret: string };
}

async function dbNowSeconds(): Promise<number> {
  const { rows } = await getPool().query(`SELECT floor(extract(epoch FROM now()))::bigint AS s`);
  return Number(rows[0].s);
}

async function deliver(
  id: string,
  opts: { rawBody?: string; headers?: Record<string, string>; sign?: { secret: string; timestamp?: number; body?: string } } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": "203.0.113.7", ...(opts.headers ?? {}) };
  const rawBody = opts.rawBody ?? "{}";
  if (opts.sign) {
    const ts = String(opts.sign.timestamp ?? (await dbNowSeconds()));
    headers["vigil-timestamp"] = ts;
    headers["vigil-signature"] = `v1=${signDelivery(opts.sign.secret, ts, opts.sign.body ?? rawBody)}`;
  }
  return callRoute(hookRoute.POST, { method: "POST", path: `/api/hooks/${id}`, params: { id }, rawBody, headers });
}

async function counts() {
  const { rows } = await getPool().query(
    `SELECT (SELECT count(*)::int FROM runs WHERE schedule_id = $1) AS runs,
            (SELECT count(*)::int FROM audit_events) AS audit,
            (SELECT count(*)::int FROM audit_events WHERE action = 'trigger_url.delivery_refused') AS refused`,
    [scheduleId],
  );
  return rows[0] as { runs: number; audit: number; refused: number };
}

/** A refusal: the status and code, no run, one more audit row (the refusal, with the sender's address). */
async function expectRefused(send: () => ReturnType<typeof callRoute>, status: number, code: string) {
  const before = await counts();
  const r = await send();
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.message.length).toBeGreaterThan(20);
  const after = await counts();
  expect(after.runs).toBe(before.runs);
  expect(after.audit).toBe(before.audit + 1);
  expect(after.refused).toBe(before.refused + 1);
  const { rows } = await getPool().query(`SELECT ip, after FROM audit_events ORDER BY id DESC LIMIT 1`);
  expect(rows[0].after.code).toBe(code);
  expect(rows[0].ip).not.toBeNull();
  return r;
}

describe("trigger URLs", () => {
  beforeAll(async () => {
    operator = await createTestToken(db.url, "operator");
    viewer = await createTestToken(db.url, "viewer");
    scheduleId = await insertSchedule(getPool(), { handler: "demo.sleep", payload: { ms: 10 } });
  });

  it("creates a run for a good signature, audited with the sender's address and the URL's label", async () => {
    const hook = await createHook({ label: "ci pipeline" });
    expect(hook.triggerUrl.path).toBe(`/api/hooks/${hook.triggerUrl.id}`);
    expect(hook.secret).toMatch(/^vgh_/);
    const before = await counts();
    const res = await deliver(hook.triggerUrl.id, { rawBody: '{"ignored":true}', sign: { secret: hook.secret } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ scheduleId, replayed: false });
    const after = await counts();
    expect(after.runs).toBe(before.runs + 1);
    const { rows: runs } = await getPool().query(`SELECT kind, state, payload FROM runs WHERE id = $1`, [res.body.runId]);
    expect(runs[0]).toMatchObject({ kind: "manual", state: "queued", payload: { ms: 10 } });
    const { rows: audit } = await getPool().query(
      `SELECT actor_type, actor, action, ip FROM audit_events WHERE action = 'schedule.trigger' AND after->>'runId' = $1`,
      [res.body.runId],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: "webhook", actor: 'trigger URL "ci pipeline"' });
    expect(audit[0].ip).not.toBeNull();
    const { rows: used } = await getPool().query(`SELECT last_used_at FROM trigger_urls WHERE id = $1`, [hook.triggerUrl.id]);
    expect(used[0].last_used_at).not.toBeNull();
  });

  it("refuses a bad signature, a missing one and a signature over another body", async () => {
    const hook = await createHook({ label: "bad signatures" });
    await expectRefused(() => deliver(hook.triggerUrl.id, { sign: { secret: "vgh_not-the-secret" } }), 401, "signature_mismatch");
    await expectRefused(
      () => deliver(hook.triggerUrl.id, { rawBody: '{"a":2}', sign: { secret: hook.secret, body: '{"a":1}' } }),
      401,
      "signature_mismatch",
    );
    await expectRefused(() => deliver(hook.triggerUrl.id), 401, "signature_missing");
  });

  it("refuses a replay outside the window measured by the database's clock", async () => {
    const hook = await createHook({ label: "replays" });
    const now = await dbNowSeconds();
    await expectRefused(
      () => deliver(hook.triggerUrl.id, { sign: { secret: hook.secret, timestamp: now - 301 } }),
      401,
      "timestamp_outside_window",
    );
    await expectRefused(
      () => deliver(hook.triggerUrl.id, { sign: { secret: hook.secret, timestamp: now + 400 } }),
      401,
      "timestamp_outside_window",
    );
    // Inside the window it is accepted; the same signed delivery sent again answers the first run and creates nothing.
    const first = await deliver(hook.triggerUrl.id, { sign: { secret: hook.secret, timestamp: now - 200 } });
    expect(first.status).toBe(200);
    const before = await counts();
    const again = await deliver(hook.triggerUrl.id, {
      headers: { "vigil-timestamp": String(now - 200), "vigil-signature": `v1=${signDelivery(hook.secret, String(now - 200), "{}")}` },
    });
    expect(again.body).toEqual({ runId: first.body.runId, scheduleId, replayed: true });
    expect((await counts()).runs).toBe(before.runs);
  });

  it("answers a reused delivery id with the first delivery's run and creates nothing", async () => {
    const hook = await createHook({ label: "dedupe" });
    const first = await deliver(hook.triggerUrl.id, { headers: { "vigil-delivery-id": "evt-1" }, sign: { secret: hook.secret } });
    expect(first.status).toBe(200);
    const before = await counts();
    // Signed afresh (another timestamp, so another signature): the delivery id alone dedupes.
    const again = await deliver(hook.triggerUrl.id, {
      headers: { "vigil-delivery-id": "evt-1" },
      sign: { secret: hook.secret, timestamp: (await dbNowSeconds()) - 5 },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ runId: first.body.runId, scheduleId, replayed: true });
    const idem = await deliver(hook.triggerUrl.id, {
      headers: { "idempotency-key": "evt-1" },
      sign: { secret: hook.secret, timestamp: (await dbNowSeconds()) - 9 },
    });
    expect(idem.body.runId).toBe(first.body.runId);
    expect((await counts()).runs).toBe(before.runs);
    const other = await deliver(hook.triggerUrl.id, { headers: { "vigil-delivery-id": "evt-2" }, sign: { secret: hook.secret } });
    expect(other.body.replayed).toBe(false);
    expect(other.body.runId).not.toBe(first.body.runId);
  });

  it("refuses a body over 64 KiB with 413, whether or not it declares its length", async () => {
    const hook = await createHook({ label: "big" });
    const big = JSON.stringify({ pad: "x".repeat(70 * 1024) });
    await expectRefused(() => deliver(hook.triggerUrl.id, { rawBody: big, sign: { secret: hook.secret } }), 413, "payload_too_large");
  });

  it("answers 429 with Retry-After past the URL's rate, and records the flood once", async () => {
    const hook = await createHook({ label: "rate", rateLimitPerMinute: 2 });
    for (let i = 0; i < 2; i++)
      expect((await deliver(hook.triggerUrl.id, { headers: { "vigil-delivery-id": `r${i}` }, sign: { secret: hook.secret } })).status).toBe(
        200,
      );
    const res = await callRoute(hookRoute.POST, {
      method: "POST",
      path: `/api/hooks/${hook.triggerUrl.id}`,
      params: { id: hook.triggerUrl.id },
      rawBody: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("rate_limited");
    // A further refusal in the same minute is answered but not written again.
    const before = await counts();
    const more = await deliver(hook.triggerUrl.id, { headers: { "vigil-delivery-id": "r9" }, sign: { secret: hook.secret } });
    expect(more.status).toBe(429);
    expect(await counts()).toEqual(before);
  });

  it("returns the Retry-After header on 429", async () => {
    const hook = await createHook({ label: "retry-after", rateLimitPerMinute: 1 });
    await deliver(hook.triggerUrl.id, { sign: { secret: hook.secret } });
    const req = new (await import("next/server")).NextRequest(`http://localhost:3000/api/hooks/${hook.triggerUrl.id}`, {
      method: "POST",
      body: "{}",
    });
    const res = await hookRoute.POST(req, { params: Promise.resolve({ id: hook.triggerUrl.id }) });
    expect(res.status).toBe(429);
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it("takes the bearer secret on a bearer URL and refuses a wrong one", async () => {
    const hook = await createHook({ label: "bearer", authMode: "bearer" });
    const { rows } = await getPool().query(`SELECT secret_ciphertext FROM trigger_urls WHERE id = $1`, [hook.triggerUrl.id]);
    expect(rows[0].secret_ciphertext).toBeNull(); // a bearer secret needs only its hash
    await expectRefused(() => deliver(hook.triggerUrl.id, { headers: { authorization: "Bearer vgh_wrong" } }), 401, "bearer_mismatch");
    await expectRefused(() => deliver(hook.triggerUrl.id), 401, "bearer_missing");
    const ok = await deliver(hook.triggerUrl.id, { headers: { authorization: `Bearer ${hook.secret}` } });
    expect(ok.status).toBe(200);
  });

  it("answers 404 alike for a revoked URL and one that never existed", async () => {
    const hook = await createHook({ label: "to revoke" });
    const rev = await callRoute(hookIdRoute.DELETE, {
      method: "DELETE",
      path: `/api/schedules/${scheduleId}/hooks/${hook.triggerUrl.id}`,
      params: { id: scheduleId, hookId: hook.triggerUrl.id },
      token: operator,
    });
    expect(rev.status).toBe(200);
    expect(rev.body.triggerUrl.revokedAt).not.toBeNull();
    const revoked = await expectRefused(() => deliver(hook.triggerUrl.id, { sign: { secret: hook.secret } }), 404, "not_found");
    const unknown = await expectRefused(() => deliver(crypto.randomUUID(), { sign: { secret: hook.secret } }), 404, "not_found");
    expect(revoked.body.error.message).toBe(unknown.body.error.message);
    await expectRefused(() => deliver("not-a-uuid"), 404, "not_found");
    await expectRefused(() => deliver("a\u0000b"), 404, "not_found");
  });

  it("passes a valid body on as the payload and refuses one the handler's schema does not accept", async () => {
    const hook = await createHook({ label: "body payload", payloadMode: "body" });
    const good = await deliver(hook.triggerUrl.id, { rawBody: '{"ms":25}', sign: { secret: hook.secret, body: '{"ms":25}' } });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    const { rows } = await getPool().query(`SELECT payload FROM runs WHERE id = $1`, [good.body.runId]);
    expect(rows[0].payload).toMatchObject({ ms: 25 });
    const bad = await expectRefused(
      () => deliver(hook.triggerUrl.id, { rawBody: '{"ms":"soon"}', sign: { secret: hook.secret } }),
      422,
      "payload_invalid",
    );
    expect(Object.keys(bad.body.error.fields ?? {})).toContain("payload.ms");
    await expectRefused(() => deliver(hook.triggerUrl.id, { rawBody: "[1,2]", sign: { secret: hook.secret } }), 422, "payload_invalid");
    await expectRefused(() => deliver(hook.triggerUrl.id, { rawBody: '{"ms":', sign: { secret: hook.secret } }), 422, "payload_invalid");
    // The checks every JSON body gets (app/api/_lib/read-input.ts), here after the signature.
    const nul = JSON.stringify({ ms: 5, note: "a\u0000b" });
    await expectRefused(() => deliver(hook.triggerUrl.id, { rawBody: nul, sign: { secret: hook.secret } }), 400, "invalid_characters");
    const deep = `{"ms":5,"x":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`;
    await expectRefused(() => deliver(hook.triggerUrl.id, { rawBody: deep, sign: { secret: hook.secret } }), 400, "too_deep");
    await expectRefused(
      () => deliver(hook.triggerUrl.id, { rawBody: '{"ms":5}', headers: { "content-type": "text/plain" }, sign: { secret: hook.secret } }),
      415,
      "unsupported_media_type",
    );
  });

  it("rotates: the old secret is refused, the new one accepted", async () => {
    const hook = await createHook({ label: "rotating" });
    const rot = await callRoute(rotateRoute.POST, {
      method: "POST",
      path: `/api/schedules/${scheduleId}/hooks/${hook.triggerUrl.id}/rotate`,
      params: { id: scheduleId, hookId: hook.triggerUrl.id },
      token: operator,
    });
    expect(rot.status).toBe(200);
    secretsSeen.push(rot.body.secret);
    expect(rot.body.secret).not.toBe(hook.secret);
    await expectRefused(() => deliver(hook.triggerUrl.id, { sign: { secret: hook.secret } }), 401, "signature_mismatch");
    expect((await deliver(hook.triggerUrl.id, { sign: { secret: rot.body.secret } })).status).toBe(200);
  });

  it("refuses a viewer and checks the input of a new URL", async () => {
    const res = await callRoute(hooksRoute.POST, {
      method: "POST",
      path: `/api/schedules/${scheduleId}/hooks`,
      params: { id: scheduleId },
      token: viewer,
      body: { label: "x" },
    });
    expect(res.status).toBe(403);
    const bad = await callRoute(hooksRoute.POST, {
      method: "POST",
      path: `/api/schedules/${scheduleId}/hooks`,
      params: { id: scheduleId },
      token: operator,
      body: { label: "", authMode: "basic", rateLimitPerMinute: 0 },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["authMode", "label", "rateLimitPerMinute"]);
  });

  it("keeps every secret out of listings, audit rows and every other table", async () => {
    expect(secretsSeen.length).toBeGreaterThan(5);
    const list = await callRoute(hooksRoute.GET, {
      path: `/api/schedules/${scheduleId}/hooks`,
      params: { id: scheduleId },
      token: operator,
    });
    expect(list.status).toBe(200);
    expect(list.body.triggerUrls.length).toBeGreaterThan(5);
    const listed = JSON.stringify(list.body);
    const { rows } = await getPool().query(`SELECT string_agg(to_jsonb(a)::text, E'\\n') AS text FROM audit_events a`);
    const { rows: tables } = await getPool().query(
      `SELECT string_agg(query_to_xml(format('SELECT * FROM %I.%I', schemaname, relname), false, true, '')::text, E'\\n') AS text
         FROM pg_stat_user_tables WHERE schemaname = 'public'`,
    );
    for (const s of secretsSeen) {
      expect(listed).not.toContain(s);
      expect(rows[0].text).not.toContain(s);
      expect(tables[0].text).not.toContain(s);
      expect(tables[0].text).not.toContain(s.slice(4)); // not even without its prefix
    }
  });
});
