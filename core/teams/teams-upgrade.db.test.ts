// Upgrade in place: a database filled by the release before teams (schedules, runs, audit rows, secrets, calendars,
// concurrency groups, alert channels, users) migrates into the team "default" with every object, run and audit row
// kept, every viewer and operator a member of it with the role they had, and the audit chain still verifying.
import { afterAll, expect, inject, test } from "vitest";
import pg from "pg";
import { migrate } from "../db/migrate";
import { dropDatabase, withDatabase } from "../../test/postgres-for-tests";
import { verifyAudit } from "../audit/verify-audit";
import { authenticate } from "../auth/authenticate";
import { createSession } from "../auth/sessions";
import { DEFAULT_TEAM_ID } from "./team-roles";
import { teamRoleOf, visibleTeamIds } from "./team-access";

const TEAMS = "20261208300000";
const adminUrl = inject("adminUrl");
const name = `vigil_teams_upgrade_${process.pid}_${Date.now().toString(36)}`;
const url = withDatabase(adminUrl, name);

afterAll(async () => {
  await dropDatabase(adminUrl, url);
});

const COUNTED = ["schedules", "runs", "audit_events", "secrets", "calendars", "concurrency_groups", "alert_channels", "users"];

async function counts(c: pg.Client): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of COUNTED) out[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
  return out;
}

test("today's database moves into the default team: every object, run and audit row kept, roles kept, the chain verifies", async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const older = await migrate(url, { before: TEAMS });
  expect(older.every((m) => m < TEAMS)).toBe(true);
  expect(older).toContain("20261207250000_alert_channels");

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const users = await c.query<{ id: string; role: string }>(
      `INSERT INTO users (email, password_hash, role) VALUES ('root@x.test', 'x', 'admin'), ('op@x.test', 'x', 'operator'), ('view@x.test', 'x', 'viewer')
       RETURNING id, role`,
    );
    const byRole = Object.fromEntries(users.rows.map((u) => [u.role, u.id]));
    await c.query(`INSERT INTO concurrency_groups (name, max_running) VALUES ('nightly', 2)`);
    const { rows: s } = await c.query<{ id: string }>(
      `INSERT INTO schedules (name, handler, payload, trigger, concurrency_group)
       VALUES ('ledger', 'demo.noop', '{"token":{"$secret":"BANK_TOKEN"}}', '{"kind":"interval","everySeconds":60}', 'nightly'),
              ('report', 'demo.noop', '{}', '{"kind":"interval","everySeconds":3600}', NULL)
       RETURNING id`,
    );
    for (const { id } of s) {
      await c.query(
        `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds)
         SELECT $1::uuid, 'manual', now() - make_interval(mins => k), now() - make_interval(mins => k), 'upgrade:' || $1::text || ':' || k, 'succeeded',
                'demo.noop', '{}', 30, 1 FROM generate_series(1, 3) k`,
        [id],
      );
    }
    await c.query(
      `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by) VALUES ('BANK_TOKEN', '\\x00', '\\x00', '\\x00', 'k', 't', 't')`,
    );
    await c.query(
      `INSERT INTO calendars (name, timezone, rules, created_by) VALUES ('holidays', 'UTC', '{"dates":[],"weekdays":[],"windows":[],"ranges":[]}', 't')`,
    );
    await c.query(`INSERT INTO alert_channels (name, type, created_by, updated_by) VALUES ('ops-hook', 'webhook', 't', 't')`);
    for (const [i, { id }] of s.entries()) {
      await c.query(
        `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id, after) VALUES ('user', 'op@x.test', 'schedule.create', 'schedule', $1, $2)`,
        [id, JSON.stringify({ n: i })],
      );
    }
    await c.query(
      `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id) VALUES ('user', 'root@x.test', 'user.create', 'user', $1)`,
      [byRole.operator],
    );
    const before = await counts(c);
    const chainBefore = await verifyAudit(c);
    expect(chainBefore.ok).toBe(true);

    const applied = await migrate(url);
    expect(applied[0]).toMatch(new RegExp(`^${TEAMS}_`));

    expect(await counts(c)).toEqual(before);
    for (const t of ["schedules", "secrets", "calendars", "concurrency_groups", "alert_channels"]) {
      const { rows } = await c.query(`SELECT DISTINCT team_id FROM ${t}`);
      expect(rows, t).toEqual([{ team_id: DEFAULT_TEAM_ID }]);
    }
    const { rows: members } = await c.query(`SELECT user_id, role, source FROM team_members ORDER BY role`);
    expect(members).toEqual([
      { user_id: byRole.operator, role: "operator", source: "manual" },
      { user_id: byRole.viewer, role: "viewer", source: "manual" },
    ]);
    const chainAfter = await verifyAudit(c);
    expect(chainAfter.ok).toBe(true);
    expect(chainAfter.checked).toBe(chainBefore.checked);

    // The operator signs in as before and acts in the default team; the admin is the global admin.
    const { token } = await createSession(c, byRole.operator!, { ip: null, userAgent: null });
    const op = (await authenticate(c, { sessionToken: token }))!;
    expect([op.role, teamRoleOf(op, DEFAULT_TEAM_ID), visibleTeamIds(op)]).toEqual(["operator", "operator", [DEFAULT_TEAM_ID]]);
    const { token: rootToken } = await createSession(c, byRole.admin!, { ip: null, userAgent: null });
    const root = (await authenticate(c, { sessionToken: rootToken }))!;
    expect([root.role, visibleTeamIds(root)]).toEqual(["admin", null]);
  } finally {
    await c.end();
  }
});
