// Upgrade in place: a database of the release before access rules, with secrets its schedules refer to (in their
// payload, or only in an unfinished triggered run's payload override), migrates to rules that keep every one of
// those references resolving, and allow nothing else.
import crypto from "node:crypto";
import { afterAll, expect, inject, test } from "vitest";
import pg from "pg";
import { migrate } from "../db/migrate";
import { dropDatabase, withDatabase } from "../../test/postgres-for-tests";
import { encryptSecretValue } from "./secret-crypto";
import { resolvePayloadSecrets, SecretNotAllowedError } from "./resolve-secrets";

// Before core/env.ts parses the environment: the key the worker would resolve with.
const KEY = crypto.randomBytes(32);
process.env.VIGIL_SECRET_KEY = KEY.toString("base64");

const ACCESS_RULES = "20261206500000";
const adminUrl = inject("adminUrl");
const name = `vigil_secret_upgrade_${process.pid}_${Date.now().toString(36)}`;
const url = withDatabase(adminUrl, name);

afterAll(async () => {
  await dropDatabase(adminUrl, url);
});

async function insertSecret(c: pg.Client, secret: string, value: string) {
  const e = encryptSecretValue(KEY, secret, value);
  await c.query(
    `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, 'test', 'test')`,
    [secret, e.ciphertext, e.iv, e.authTag, e.keyId],
  );
}

async function insertSchedule(c: pg.Client, schedule: string, payload: unknown): Promise<string> {
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO schedules (name, handler, payload, trigger, enabled) VALUES ($1, 'http.request', $2, '{"kind":"once","at":"2099-01-01T00:00:00Z"}', false)
     RETURNING id`,
    [schedule, JSON.stringify(payload)],
  );
  return rows[0]!.id;
}

test("existing secrets are allowed to the schedules that refer to them now, and to no other", async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const older = await migrate(url, { before: ACCESS_RULES });
  expect(older.every((m) => m < ACCESS_RULES)).toBe(true);

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await insertSecret(c, "BANK_TOKEN", "bank-token-value");
    await insertSecret(c, "OVERRIDE_TOKEN", "override-token-value");
    await insertSecret(c, "UNUSED_TOKEN", "unused-token-value");
    const payload = { url: "https://bank.example/x", headers: { Authorization: { $secret: "BANK_TOKEN" } } };
    const bank = await insertSchedule(c, "bank-sync", payload);
    const both = await insertSchedule(c, "bank-both", { url: "https://bank.example/y", body: { $secret: "BANK_TOKEN" } });
    const other = await insertSchedule(c, "other-job", { url: "https://other.example/" });
    // A trigger's payload override, waiting to run: its schedule's own payload has no reference.
    await c.query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, handler, payload, timeout_seconds, grace_seconds)
       VALUES ($1, 'manual', now(), now(), 'upgrade-override', 'http.request', $2, 30, 1)`,
      [other, JSON.stringify({ url: "https://other.example/", headers: { "X-Key": { $secret: "OVERRIDE_TOKEN" } } })],
    );

    const applied = await migrate(url);
    expect(applied[0]).toMatch(new RegExp(`^${ACCESS_RULES}_`));

    const { rows } = await c.query(`SELECT name, access FROM secrets ORDER BY name`);
    expect(rows).toEqual([
      { name: "BANK_TOKEN", access: { schedules: ["bank-both", "bank-sync"], tags: [], handlers: [] } },
      { name: "OVERRIDE_TOKEN", access: { schedules: ["other-job"], tags: [], handlers: [] } },
      { name: "UNUSED_TOKEN", access: { schedules: [], tags: [], handlers: [] } },
    ]);

    // What the worker does at run time: the references made before the upgrade still resolve...
    const resolved = await resolvePayloadSecrets(c, payload, { scheduleId: bank, handler: "http.request" });
    expect(resolved.secrets).toEqual([{ name: "BANK_TOKEN", value: "bank-token-value" }]);
    expect(
      (await resolvePayloadSecrets(c, { b: { $secret: "BANK_TOKEN" } }, { scheduleId: both, handler: "http.request" })).secrets,
    ).toHaveLength(1);
    // ...and a schedule that did not refer to a secret is not given it by the upgrade.
    await expect(resolvePayloadSecrets(c, payload, { scheduleId: other, handler: "http.request" })).rejects.toThrow(SecretNotAllowedError);
    // A new secret, set after the upgrade without a rule, may be used by no schedule.
    const { rows: fresh } = await c.query(
      `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by) VALUES ('NEW_ONE', '\\x00', '\\x00', '\\x00', 'k', 't', 't') RETURNING access`,
    );
    expect(fresh[0].access).toEqual({ schedules: [], tags: [], handlers: [] });
  } finally {
    await c.end();
  }
});
