// Attacks with the console's and the worker's database logins (what a job that read them could do): the audit
// trail cannot be rewritten, the anchors cannot be forged, the server cannot be made to run programs, and the
// worker cannot make anyone an admin. And a chain rewritten with the database's full power is still reported by
// the default verify (CLI and API), which checks against the anchor file kept outside the database.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { runAs, setUpRoleDatabase, type RoleUrls } from "./role-database";
import { createTestToken } from "./auth";
import { callRoute } from "./call-route";
import { systemActor } from "../core/auth/roles";
import { recordAudit } from "../core/audit/record-audit";
import { publishAuditAnchor } from "../core/audit/publish-audit-anchor";
import { ensurePartitionDays } from "../core/retention/ensure-partitions";
import { ANCHOR_FILE } from "../scripts/lib/embedded-credentials";
import { terminateRunSessions } from "../core/runs/reap/terminate-run-sessions";
import { runSessionTag } from "../core/handlers/run-session-tag";

// As `npm start` sets it for the console: the anchor file in Vigil's data folder (scripts/start.ts).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-roles-"));
const anchorFile = path.join(dir, ANCHOR_FILE);
process.env.VIGIL_AUDIT_ANCHOR_FILE = anchorFile;
const { GET: verifyGET } = await import("@/app/api/audit/verify/route");

const run = promisify(execFile);
const db = useTestDatabase("roles");
let roles: RoleUrls;
const quiet = pino({ level: "silent" });

async function auditAs(url: string, n: number) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (let i = 0; i < n; i++)
      await recordAudit(c, { actor: systemActor("roles-test"), action: "schedule.edit", targetType: "schedule", targetId: `s${i}` });
  } finally {
    await c.end();
  }
}

async function auditSnapshot(): Promise<string> {
  const { rows } = await runAs(db.url, `SELECT string_agg(id || ':' || hash, ',' ORDER BY id) AS s FROM audit_events`);
  return rows[0].s;
}

beforeAll(async () => {
  roles = await setUpRoleDatabase(db.adminUrl, db.url);
  await auditAs(roles.console, 3);
  await auditAs(roles.worker, 2);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const BOTH: [string, string][] = [
  ["UPDATE the audit trail", "UPDATE audit_events SET reason = 'rewritten'"],
  ["DELETE from the audit trail", "DELETE FROM audit_events"],
  ["TRUNCATE the audit trail", "TRUNCATE audit_events"],
  ["disable the audit trail's triggers", "ALTER TABLE audit_events DISABLE TRIGGER USER"],
  ["switch triggers off for the session", "SET session_replication_role = replica"],
  [
    "replace the chain's hash function",
    "CREATE OR REPLACE FUNCTION vigil_audit_hash(e audit_events) RETURNS text LANGUAGE sql AS $$ SELECT ''::text $$",
  ],
  ["write an anchor", "INSERT INTO audit_anchors (audit_id, hash, count, published_by) VALUES (1, repeat('0', 64), 1, 'forged')"],
  ["delete the anchors", "DELETE FROM audit_anchors"],
  ["run a program on the server", "COPY (SELECT 1) TO PROGRAM 'id'"],
  ["read a server file", "SELECT pg_read_file('/etc/passwd')"],
  [
    "create a function in an untrusted language",
    "CREATE FUNCTION pg_temp.evil() RETURNS int LANGUAGE c AS '$libdir/plpgsql', 'plpgsql_call_handler'",
  ],
  ["create a table in Vigil's schema", "CREATE TABLE public.evil (a int)"],
  ["make itself a superuser", "ALTER ROLE CURRENT_USER SUPERUSER"],
];

const WORKER_ONLY: [string, string][] = [
  ["promote an account to admin", "UPDATE users SET role = 'admin'"],
  ["create an account", "INSERT INTO users DEFAULT VALUES"],
  ["mint an API token", "INSERT INTO api_tokens DEFAULT VALUES"],
  ["forge a sign-in session", "INSERT INTO sessions DEFAULT VALUES"],
  ["sign everyone out", "DELETE FROM sessions"],
  ["replace a secret", "INSERT INTO secrets DEFAULT VALUES"],
];

describe.each(["console", "worker"] as const)("as the %s's login", (role) => {
  const attacks = role === "worker" ? [...BOTH, ...WORKER_ONLY] : BOTH;
  it.each(attacks)("cannot %s", async (_what, sql) => {
    const before = await auditSnapshot();
    await expect(runAs(roles[role], sql)).rejects.toThrow(/permission denied|must be owner|must be superuser|not allowed|insufficient/i);
    expect(await auditSnapshot()).toBe(before);
  });

  it("cannot act as the owner or the other application role", async () => {
    const other = role === "console" ? roles.logins.worker.user : roles.logins.console.user;
    for (const target of [roles.logins.owner.user, other])
      await expect(runAs(roles[role], `SET ROLE "${target}"`)).rejects.toThrow(/permission denied/);
  });

  it("is not a superuser and can still append to the audit trail", async () => {
    const { rows } = await runAs(roles[role], "SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
    expect(rows[0].rolsuper).toBe(false);
    await auditAs(roles[role], 1);
  });
});

describe("the worker's anchor publisher", () => {
  it("records only the head the chain really has", async () => {
    const forged = await runAs(roles.worker, `SELECT vigil_record_audit_anchor(1, repeat('a', 64), 1, now(), 'w', '{}') AS ok`);
    expect(forged.rows[0].ok).toBe(false);
    expect((await runAs(db.url, "SELECT count(*)::int AS n FROM audit_anchors")).rows[0].n).toBe(0);
    const pool = new pg.Pool({ connectionString: roles.worker, max: 1 });
    try {
      const r = await publishAuditAnchor(pool, { sinks: { file: anchorFile }, publishedBy: "roles-test", log: quiet });
      expect(r.status).toBe("published");
    } finally {
      await pool.end();
    }
    expect((await runAs(db.url, "SELECT count(*)::int AS n FROM audit_anchors")).rows[0].n).toBe(1);
  });
});

describe("ending a run's database sessions", () => {
  it("the console cancelling a run ends the worker-role sessions tagged as the run's, and only those", async () => {
    const runId = crypto.randomUUID();
    const handler = new pg.Client({ connectionString: roles.worker, application_name: runSessionTag(runId) });
    const bystander = new pg.Client({ connectionString: roles.worker, application_name: "vigil" });
    handler.on("error", () => undefined);
    await handler.connect();
    await bystander.connect();
    try {
      const pid = (await handler.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
      await expect(runAs(roles.console, "SELECT pg_terminate_backend($1)", [pid])).rejects.toThrow(/permission denied/);
      const c = new pg.Client({ connectionString: roles.console });
      await c.connect();
      try {
        expect(await terminateRunSessions(c, runId, 5000)).toBe(1);
        // A tag that is not a run's signals nothing, whatever it matches.
        expect((await c.query("SELECT vigil_terminate_run_sessions('vigil', 0) AS n")).rows[0].n).toBe(0);
      } finally {
        await c.end();
      }
      await expect(handler.query("SELECT 1")).rejects.toThrow();
      expect((await bystander.query("SELECT 1 AS ok")).rows[0].ok).toBe(1);
    } finally {
      await handler.end().catch(() => undefined);
      await bystander.end();
    }
  });
});

describe("retention's partition work as the worker", () => {
  it("creates, detaches concurrently and drops a day partition; the console cannot", async () => {
    const c = new pg.Client({ connectionString: roles.worker });
    await c.connect();
    try {
      await ensurePartitionDays(c, "run_events", ["2031-01-02"]);
      await expect(runAs(roles.console, "ALTER TABLE run_events DETACH PARTITION run_events_p20310102")).rejects.toThrow(/must be owner/);
      await c.query("ALTER TABLE run_events DETACH PARTITION run_events_p20310102 CONCURRENTLY");
      await c.query("DROP TABLE run_events_p20310102");
    } finally {
      await c.end();
    }
  });
});

describe("a chain rewritten with the database's full power", () => {
  it("is reported by the default verify of the CLI and the API (the anchor file outside the database)", async () => {
    expect(fs.readFileSync(anchorFile, "utf8")).toMatch(/"seq"/);
    // A superuser deletes a row in the middle, relinks and rehashes every row after it, and empties audit_anchors.
    const su = new pg.Client({ connectionString: db.url });
    await su.connect();
    try {
      await su.query("SET session_replication_role = replica");
      await su.query("DELETE FROM audit_events WHERE id = (SELECT id FROM audit_events ORDER BY id OFFSET 1 LIMIT 1)");
      await su.query(`DO $$ DECLARE r audit_events; prev text := repeat('0', 64); BEGIN
        FOR r IN SELECT * FROM audit_events ORDER BY id LOOP
          r.prev_hash := prev; r.hash := vigil_audit_hash(r);
          UPDATE audit_events SET prev_hash = r.prev_hash, hash = r.hash WHERE id = r.id;
          prev := r.hash;
        END LOOP; END $$`);
      await su.query("DELETE FROM audit_anchors");
      expect((await su.query("SELECT broken_id FROM vigil_audit_verify()")).rows[0].broken_id).toBeNull();
    } finally {
      await su.end();
    }

    // CLI: no anchor option, no VIGIL_AUDIT_ANCHOR_FILE: the default file beside VIGIL_DATA_DIR is used.
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: roles.owner, VIGIL_DATA_DIR: path.join(dir, "pgdata") };
    delete env.VIGIL_AUDIT_ANCHOR_FILE;
    const cli = await run(process.execPath, ["--import", "tsx", "scripts/audit-verify.ts"], { env }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    expect(cli.out).toMatch(/ANCHOR NOT MATCHED/);
    expect(cli.code).toBe(1);

    const token = await createTestToken(db.url, "viewer");
    const api = await callRoute(verifyGET, { path: "/api/audit/verify", token });
    expect(api.status).toBe(200);
    expect(api.body.ok).toBe(false);
  }, 60_000);
});
