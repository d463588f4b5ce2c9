import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import type pg from "pg";
import { inject } from "vitest";
import { testPool, useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { cloneTemplate, dropDatabase } from "@/test/postgres-for-tests";
import { getPool, withTransaction } from "@/core/db/pool";
import type { Actor } from "@/core/auth/roles";
import { applySchedules } from "@/core/schedules/as-code/apply-schedules";
import { exportSchedules, renderExport } from "@/core/schedules/as-code/export-schedules";
import * as schedules from "../route";
import * as pause from "../[id]/pause/route";
import * as exportRoute from "../export/route";
import * as apply from "./route";

const db = useTestDatabase("as_code");
let operator: string;
let viewer: string;

// Allowed to the team's schedules (a secret's access rule: core/secrets/secret-access.ts).
const addSecret = (q: pg.Pool | pg.PoolClient, name: string) =>
  q.query(
    `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by, access)
     VALUES ($1, '\\x00', '\\x00', '\\x00', 'k', 't', 't', '{"schedules": [], "tags": ["team:payments"], "handlers": []}')`,
    [name],
  );

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  viewer = await createTestToken(db.url, "viewer");
  await addSecret(getPool(), "LEDGER_HOOK_KEY");
});

const create = async (body: Record<string, unknown>) => {
  const res = await callRoute(schedules.POST, { method: "POST", token: operator, path: "/api/schedules", body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.schedule;
};
const exportDoc = async (qs = "", token = operator) => callRoute(exportRoute.GET, { token, path: `/api/schedules/export${qs}` });
const applyDoc = (body: Record<string, unknown>, token = operator) =>
  callRoute(apply.POST, { method: "POST", token, path: "/api/schedules/apply", body });
const count = async (table: string) => (await getPool().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;

describe("schedules as code: export", () => {
  it("an empty database exports an empty document", async () => {
    const res = await exportDoc("?format=json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ schedules: {}, version: 1 });
  });

  it("exports sorted keys, no ids/revisions/timestamps, defaults left out; secrets stay references; filters by tag and name", async () => {
    await create({
      name: "nightly-hook",
      description: "calls the ledger",
      handler: "http.request",
      payload: { url: "https://ledger.example/hook", method: "POST", headers: { authorization: { $secret: "LEDGER_HOOK_KEY" } } },
      trigger: { kind: "cron", cron: "0 2 * * *", timezone: "Europe/Berlin" },
      tags: ["team:payments", "nightly"],
      misfirePolicy: "catch_up",
      catchUpLimit: 3,
      concurrencyGroup: "bank-api",
      concurrencyLimit: 2,
      startRateLimit: { maxStarts: 10, perSeconds: 1 },
      webhookUrl: "https://hooks.example.com/x",
      webhookFormat: "slack",
    });
    await create({ name: "every-minute", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 }, tags: ["ops"] });
    await create({ name: "kept-off", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 }, enabled: false });
    const brief = await create({ name: "brief-pause", handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 } });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      (await callRoute(pause.POST, { method: "POST", token: operator, params: { id: brief.id }, body: { reason: "x", until } })).status,
    ).toBe(200);

    const res = await exportDoc();
    expect(res.status).toBe(200);
    const text: string = res.body;
    expect(text).not.toMatch(/\bid:|revision|createdAt|updatedAt|plannedThrough/);
    const doc = YAML.parse(text);
    expect(Object.keys(doc.schedules)).toEqual(["brief-pause", "every-minute", "kept-off", "nightly-hook"]);
    expect(doc.schedules["every-minute"]).toEqual({
      handler: "demo.noop",
      payload: { records: 1 },
      tags: ["ops"],
      trigger: { everySeconds: 60, kind: "interval" },
    });
    // A pause with an until is passing state; a schedule kept disabled is part of the definition.
    expect(doc.schedules["brief-pause"].enabled).toBeUndefined();
    expect(doc.schedules["kept-off"].enabled).toBe(false);
    const hook = doc.schedules["nightly-hook"];
    expect(Object.keys(hook)).toEqual([...Object.keys(hook)].sort());
    expect(hook.payload.headers.authorization).toEqual({ $secret: "LEDGER_HOOK_KEY" });
    expect(hook).toMatchObject({
      concurrencyGroup: "bank-api",
      concurrencyLimit: 2,
      startRateLimit: { maxStarts: 10, perSeconds: 1 },
      tags: ["nightly", "team:payments"],
      catchUpLimit: 3,
    });
    expect(hook.overlapPolicy).toBeUndefined();

    const tagged = await exportDoc("?format=json&tag=ops");
    expect(Object.keys(tagged.body.schedules)).toEqual(["every-minute"]);
    const named = await exportDoc("?format=json&name=kept-off&name=nightly-hook");
    expect(Object.keys(named.body.schedules)).toEqual(["kept-off", "nightly-hook"]);
    expect((await exportDoc("?format=xml")).status).toBe(400);
  });

  it("a viewer's export masks credential-looking values, names them, and apply refuses them", async () => {
    await create({
      name: "plain-cred",
      handler: "http.request",
      payload: { url: "https://x.example", headers: { authorization: "Bearer abc" } },
      trigger: { kind: "interval", everySeconds: 60 },
    });
    const res = await exportDoc("?name=plain-cred", viewer);
    expect(res.status).toBe(200);
    expect(res.body).not.toContain("Bearer abc");
    expect(res.body).toMatch(/MASKED for your role.*schedules\.plain-cred\.payload\.headers\.authorization/);
    const refused = await applyDoc({ document: res.body, dryRun: true });
    expect(refused.status).toBe(422);
    expect(refused.body.error.fields).toHaveProperty(["schedules.plain-cred.payload.headers.authorization"]);
    await getPool().query(`UPDATE schedules SET deleted_at = now() WHERE name = 'plain-cred'`);
  });
});

describe("schedules as code: apply", () => {
  const actorLabel = async () => (await getPool().query(`SELECT name FROM api_tokens WHERE role = 'operator'`)).rows[0].name;

  it("refuses bad documents with a 422 naming the schedule and field, storing nothing", async () => {
    const before = [await count("schedules"), await count("audit_events")];
    const good = { handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 } };
    const cases: [string, unknown, string][] = [
      [
        "bad cron",
        { version: 1, schedules: { fine: good, broken: { ...good, trigger: { kind: "cron", cron: "61 * * * *", timezone: "UTC" } } } },
        "schedules.broken.trigger.cron",
      ],
      ["unknown handler", { version: 1, schedules: { nohandler: { ...good, handler: "nope.nothing" } } }, "schedules.nohandler.handler"],
      [
        "payload against the handler's schema",
        { version: 1, schedules: { badpay: { ...good, handler: "ledger.post", payload: { amount: -1 } } } },
        "schedules.badpay.payload.amount",
      ],
      ["bad name", { version: 1, schedules: { "Bad Name": good } }, "schedules.Bad Name"],
      ["unknown field", { version: 1, schedules: { typo: { ...good, timeoutSecs: 3 } } }, "schedules.typo"],
      ["no version", { schedules: {} }, "document.version"],
      [
        "duplicate name (YAML)",
        "version: 1\nschedules:\n  twice: {handler: demo.noop, trigger: {kind: interval, everySeconds: 60}}\n  twice: {handler: demo.noop, trigger: {kind: interval, everySeconds: 5}}\n",
        "document",
      ],
      [
        "duplicate name (JSON text)",
        '{"version":1,"schedules":{"twice":{"handler":"demo.noop","trigger":{"kind":"interval","everySeconds":60}},"twice":{"handler":"demo.noop","trigger":{"kind":"interval","everySeconds":5}}}}',
        "document",
      ],
    ];
    for (const [what, document, field] of cases) {
      const res = await applyDoc({ document, dryRun: false });
      expect(res.status, what).toBe(422);
      const keys = Object.keys(res.body.error.fields ?? {});
      expect(
        keys.some((k) => k === field || k.startsWith(`${field}.`)),
        `${what}: ${JSON.stringify(res.body.error)}`,
      ).toBe(true);
    }
    expect([await count("schedules"), await count("audit_events")]).toEqual(before);
    expect((await applyDoc({ document: { version: 1, schedules: {} } }, viewer)).status).toBe(403);
  });

  it("a dry run (the default) shows create / change field by field / pause / delete and changes nothing; --yes applies it in one go, audited as the token", async () => {
    const exported = YAML.parse((await exportDoc()).body);
    const file = structuredClone(exported);
    file.schedules["every-minute"].timeoutSeconds = 42; // change
    file.schedules["every-minute"].tags = ["ops", "team:infra"];
    file.schedules["nightly-hook"].enabled = false; // pause
    file.schedules["brand-new"] = { handler: "demo.noop", trigger: { kind: "interval", everySeconds: 300 } }; // create
    delete file.schedules["kept-off"];
    const first = await applyDoc({ document: YAML.stringify(file), dryRun: false, source: "ops.yaml" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // Every schedule named is now managed by ops.yaml (taken over); kept-off is unmanaged, so not a prune candidate.
    expect(first.body.changes.filter((c: { op: string }) => c.op === "change").every((c: { adopt: boolean }) => c.adopt)).toBe(true);
    const managed = (
      await getPool().query(`SELECT name FROM schedules WHERE managed_by = 'ops.yaml' AND deleted_at IS NULL ORDER BY name`)
    ).rows.map((r) => r.name);
    expect(managed).toEqual(["brand-new", "brief-pause", "every-minute", "nightly-hook"]);

    // Now a second file: a change, a removal (prune), and a dry run first.
    const next = structuredClone(file);
    next.schedules["every-minute"].timeoutSeconds = 50;
    delete next.schedules["brand-new"];
    const before = [await count("schedules"), await count("audit_events")];
    const dry = await applyDoc({ document: JSON.stringify(next), prune: true, source: "ops.yaml" });
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.body.changes).toEqual([
      { op: "change", name: "every-minute", id: expect.any(String), adopt: false, fields: [{ field: "timeoutSeconds", from: 42, to: 50 }] },
      { op: "delete", name: "brand-new", id: expect.any(String) },
    ]);
    expect([await count("schedules"), await count("audit_events")]).toEqual(before);
    const noPrune = await applyDoc({ document: next, source: "ops.yaml" });
    expect(noPrune.body.notInDocument).toEqual(["brand-new"]);
    expect(noPrune.body.changes.map((c: { op: string }) => c.op)).toEqual(["change"]);

    const applied = await applyDoc({ document: next, prune: true, dryRun: false, source: "ops.yaml" });
    expect(applied.status).toBe(200);
    const { rows } = await getPool().query(
      `SELECT * FROM (SELECT id, action, actor, actor_type FROM audit_events ORDER BY id DESC LIMIT 3) x ORDER BY id`,
    );
    expect(rows.map((r) => r.action)).toEqual(["schedule.edit", "schedule.delete", "schedules.apply"]);
    for (const r of rows) expect(r).toMatchObject({ actor_type: "token", actor: expect.stringContaining(await actorLabel()) });
    const again = await applyDoc({ document: next, prune: true, dryRun: false, source: "ops.yaml" });
    expect(again.body.changes).toEqual([]);
  });
});

describe("schedules as code: round trip", () => {
  let other: { url: string; pool: pg.Pool };
  beforeAll(async () => {
    const url = await cloneTemplate(inject("adminUrl"), "as_code_empty");
    other = { url, pool: testPool(url) };
    await addSecret(other.pool, "LEDGER_HOOK_KEY");
  });
  afterAll(async () => {
    await other.pool.end();
    await dropDatabase(inject("adminUrl"), other.url);
  });

  it("failure alert threshold: an export keeps 0 (off) and a number, leaves null (the default) out; a file that leaves it out resets it", async () => {
    const base = { handler: "demo.noop", trigger: { kind: "interval", everySeconds: 60 } };
    await create({ ...base, name: "failures-off", failureAlertThreshold: 0 });
    await create({ ...base, name: "failures-five", failureAlertThreshold: 5 });
    await create({ ...base, name: "failures-default" });
    const doc = (await exportDoc("?format=json&name=failures-off&name=failures-five&name=failures-default")).body;
    const entries = doc.schedules as Record<string, Record<string, unknown>>;
    expect(entries["failures-off"]!.failureAlertThreshold).toBe(0);
    expect(entries["failures-five"]!.failureAlertThreshold).toBe(5);
    expect(entries["failures-default"]).not.toHaveProperty("failureAlertThreshold");

    const bad = await applyDoc({
      document: { version: 1, schedules: { "failures-bad": { ...base, failureAlertThreshold: -1 } } },
      dryRun: true,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields["schedules.failures-bad.failureAlertThreshold"]).toMatch(
      /must be 0 \(no failure alerts for this schedule\) to 1000, or null for the global default/,
    );
    const { failureAlertThreshold: _off, ...offWithout } = entries["failures-off"]!;
    const dry = await applyDoc({
      document: { version: 1, schedules: { ...entries, "failures-off": offWithout } },
      dryRun: true,
      prune: false,
    });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const change = dry.body.changes.find((c: { name: string }) => c.name === "failures-off");
    expect(change.fields).toEqual([{ field: "failureAlertThreshold", from: 0, to: null }]);
  });

  it("export → apply to an empty database → export gives the same document (YAML and JSON)", async () => {
    const yaml = (await exportDoc()).body as string;
    const json = (await exportDoc("?format=json")).body;
    expect(Object.keys(json.schedules).length).toBeGreaterThan(3);
    const actor: Actor = { type: "token", id: null, label: "token:ci", role: "operator" };
    const result = await withTransaction(
      (tx) => applySchedules({ document: yaml, dryRun: false, source: "roundtrip.yaml" }, actor, { db: tx }),
      other.pool,
    );
    expect(result.changes.every((c) => c.op === "create" || c.op === "pause")).toBe(true);
    const back = await exportSchedules(other.pool, "operator", {});
    expect(renderExport(back, "yaml")).toBe(yaml);
    expect(JSON.parse(renderExport(back, "json"))).toEqual(json);
  });
});
