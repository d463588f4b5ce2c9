// What each application role may do in Vigil's database: the ONE declaration of the grants, applied after the
// migrations at every start (applyGrants), so a grant is never hand-made and a revoked one never lingers.
//
// Roles (docs/how-to/database-roles.md):
// - the owner runs the migrations and owns every object except those below;
// - the console and the worker are separate LOGIN roles with only what is listed here;
// - HISTORY_ROLE (NOLOGIN) owns the partitioned history tables and their day partitions: the worker is a member, so
//   its retention pass can create, detach (… CONCURRENTLY, which no function can run) and drop day partitions;
// - QUEUE_ROLE (NOLOGIN) owns pg-boss's objects (it creates per-queue tables at run time): console and worker are
//   members, and pg-boss's own connections act as it (core/queue/boss.ts), so whichever process creates a queue,
//   both can use it.
// Nobody but the owner holds TRUNCATE, REFERENCES or TRIGGER on any table. audit_events is SELECT + INSERT only, and
// audit_anchors is written only through vigil_record_audit_anchor (which records the head it computes itself).
//
// A new table, view, sequence or function needs an entry here: test/grants.db.test.ts fails on any object in the
// schema this declaration does not name, and on any entry that names nothing.
import type { Queryable } from "./pool";

export const HISTORY_ROLE = "vigil_history";
export const QUEUE_ROLE = "vigil_queue";

export type TablePrivilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE";
const R: TablePrivilege[] = ["SELECT"];
const RW: TablePrivilege[] = ["SELECT", "INSERT", "UPDATE", "DELETE"];
const RI: TablePrivilege[] = ["SELECT", "INSERT"];

/** Tables and views of the public schema: what the console and the worker may do with their rows. */
export const TABLE_GRANTS: Record<string, { console: TablePrivilege[]; worker: TablePrivilege[] }> = {
  _prisma_migrations: { console: R, worker: R },
  // Append-only for everyone: UPDATE, DELETE and TRUNCATE are not granted (the triggers refuse them too).
  audit_events: { console: RI, worker: RI },
  // Written only by vigil_record_audit_anchor (SECURITY DEFINER): nobody can record a head that is not the chain's.
  audit_anchors: { console: R, worker: R },
  // Accounts and credentials are the console's: a worker (and a job on it) can read who exists but not make an admin.
  users: { console: RW, worker: R },
  sessions: { console: RW, worker: R }, // expired ones go through vigil_expire_sessions
  api_tokens: { console: RW, worker: R },
  // Teams and memberships are the console's (admins and single sign-on write them); the worker reads a team's
  // code-execution rules and worker pool.
  teams: { console: RW, worker: R },
  team_members: { console: RW, worker: R },
  // What a team lets other teams refer to: the console checks it when a schedule is saved; the worker never reads it.
  team_shares: { console: RW, worker: [] },
  login_attempts: { console: RW, worker: ["SELECT", "DELETE"] },
  oidc_login_flows: { console: RW, worker: R },
  // The console encrypts new values; a worker re-encrypts under a new key (core/secrets/reencrypt-secrets.ts).
  secrets: { console: RW, worker: ["SELECT", "UPDATE"] },
  // History (owned by HISTORY_ROLE, of which the worker is a member): the console records operator events.
  run_events: { console: RI, worker: RI },
  run_logs: { console: RI, worker: RI },
  retention_status: { console: R, worker: RW },
  alert_deliveries: { console: RW, worker: RW },
  // Admins edit channels in the console; the worker only reads them to route and send.
  alert_channels: { console: RW, worker: R },
  alert_silences: { console: RW, worker: RW },
  alerts: { console: RW, worker: RW },
  attempts: { console: RW, worker: RW },
  // Calendars are edited in the console; the worker's planner only reads them (core/calendars/calendar-rules.ts).
  calendars: { console: RW, worker: R },
  concurrency_groups: { console: RW, worker: RW },
  fleet_attention_minute_deltas: { console: RW, worker: RW },
  fleet_attention_minutes: { console: RW, worker: RW },
  fleet_run_minute_deltas: { console: RW, worker: RW },
  fleet_run_minutes: { console: RW, worker: RW },
  handlers: { console: RW, worker: RW },
  ledger_accounts: { console: RW, worker: RW },
  ledger_entries: { console: RW, worker: RW },
  maintenance_windows: { console: RW, worker: RW },
  once_markers: { console: RW, worker: RW },
  run_daily_summaries: { console: RW, worker: RW },
  runs: { console: RW, worker: RW },
  schedule_calendars: { console: RW, worker: R },
  // Run-after links are edited in the console; the worker's chain sweep only reads them (core/runs/chain/).
  schedule_dependencies: { console: RW, worker: R },
  schedule_hourly_outcomes: { console: RW, worker: RW },
  schedule_last_runs: { console: RW, worker: RW },
  schedule_trouble_counters: { console: RW, worker: RW },
  schedule_trouble_deltas: { console: RW, worker: RW },
  schedules: { console: RW, worker: RW },
  trigger_requests: { console: RW, worker: RW },
  // Inbound trigger URLs are received and managed by the console alone; a worker (and a job on it) cannot read
  // their secrets or make one.
  trigger_urls: { console: RW, worker: [] },
  trigger_url_deliveries: { console: RW, worker: [] },
  worker_handlers: { console: RW, worker: RW },
  workers: { console: RW, worker: RW },
};

/**
 * Sequences: USAGE (nextval) for whoever inserts into the owning table; the standalone ones (the console's change
 * versions, bumped by triggers) for both. A standalone sequence must be listed here.
 */
export const STANDALONE_SEQUENCES = ["vigil_console_schedules_version", "vigil_console_version"];

/**
 * Functions of the public schema (outside extensions) that the application roles may call directly. EXECUTE is
 * revoked from PUBLIC on every function Vigil defines; triggers run their functions without it. "none" lists those
 * only triggers or the owner call.
 */
export const FUNCTION_GRANTS: Record<string, { console: boolean; worker: boolean }> = {
  vigil_array_add: { console: true, worker: true },
  vigil_array_sum: { console: true, worker: true },
  vigil_audit_chain: { console: false, worker: false },
  vigil_audit_hash: { console: true, worker: true },
  vigil_audit_refuse: { console: false, worker: false },
  vigil_audit_verify: { console: true, worker: true },
  vigil_bump_console_schedules_version: { console: false, worker: false },
  vigil_bump_console_version: { console: false, worker: false },
  vigil_claim_free_runs: { console: true, worker: true },
  vigil_ensure_day_partition: { console: true, worker: true },
  vigil_expire_sessions: { console: false, worker: true },
  vigil_finish_free_runs: { console: true, worker: true },
  vigil_fleet_apply: { console: true, worker: true },
  vigil_fleet_attention_upsert: { console: true, worker: true },
  vigil_fleet_counts: { console: true, worker: true },
  vigil_fleet_fold: { console: true, worker: true },
  vigil_fleet_run_upsert: { console: true, worker: true },
  vigil_fleet_run_values: { console: true, worker: true },
  vigil_fleet_sees: { console: true, worker: true },
  vigil_fleet_shard: { console: true, worker: true },
  vigil_job_id: { console: false, worker: true },
  vigil_notify_auth_changed: { console: false, worker: false },
  vigil_record_audit_anchor: { console: false, worker: true },
  vigil_run_outcome_classes: { console: true, worker: true },
  vigil_run_step: { console: false, worker: true },
  vigil_runs_fleet_delete: { console: false, worker: false },
  vigil_runs_fleet_insert: { console: false, worker: false },
  vigil_runs_summary_insert: { console: false, worker: false },
  vigil_runs_trouble_insert: { console: false, worker: false },
  vigil_runs_trouble_update_rows: { console: false, worker: false },
  vigil_runs_truncated: { console: false, worker: false },
  vigil_runs_update_summaries: { console: false, worker: false },
  vigil_schedule_fleet_jitter: { console: false, worker: false },
  vigil_schedule_trouble_fold: { console: false, worker: true },
  vigil_terminate_run_sessions: { console: true, worker: true },
};

/** Tables HISTORY_ROLE owns (with their day partitions). */
export const HISTORY_TABLES = ["run_events", "run_logs"];

export interface AppRoles {
  console: string;
  worker: string;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The statements that make the grants exactly TABLE_GRANTS / FUNCTION_GRANTS: everything is revoked from the two
 * roles (and from PUBLIC) first, so a privilege removed from the declaration is removed from the database too.
 */
export async function grantStatements(db: Queryable, roles: AppRoles): Promise<string[]> {
  const c = ident(roles.console);
  const w = ident(roles.worker);
  const both = `${c}, ${w}`;
  const out: string[] = [
    `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, ${both}`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, ${both}`,
    `GRANT USAGE ON SCHEMA public TO ${both}`,
  ];
  const { rows: fns } = await db.query<{ sig: string; name: string }>(
    `SELECT p.oid::regprocedure::text AS sig, p.proname AS name
       FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`,
  );
  for (const f of fns) {
    out.push(`REVOKE ALL ON FUNCTION ${f.sig} FROM PUBLIC, ${both}`);
    const g = FUNCTION_GRANTS[f.name];
    const to = [g?.console ? c : null, g?.worker ? w : null].filter(Boolean);
    if (to.length) out.push(`GRANT EXECUTE ON FUNCTION ${f.sig} TO ${to.join(", ")}`);
  }
  for (const [table, g] of Object.entries(TABLE_GRANTS)) {
    if (g.console.length) out.push(`GRANT ${g.console.join(", ")} ON ${ident(table)} TO ${c}`);
    if (g.worker.length) out.push(`GRANT ${g.worker.join(", ")} ON ${ident(table)} TO ${w}`);
  }
  // A serial column's sequence: USAGE for whoever may insert into its table.
  const { rows: seqs } = await db.query<{ seq: string; tbl: string }>(
    `SELECT s.relname AS seq, t.relname AS tbl
       FROM pg_depend d JOIN pg_class s ON s.oid = d.objid JOIN pg_class t ON t.oid = d.refobjid
      WHERE s.relkind = 'S' AND d.deptype IN ('a', 'i') AND s.relnamespace = 'public'::regnamespace`,
  );
  for (const s of seqs) {
    const g = TABLE_GRANTS[s.tbl];
    const to = [g?.console.includes("INSERT") ? c : null, g?.worker.includes("INSERT") ? w : null].filter(Boolean);
    if (to.length) out.push(`GRANT USAGE, SELECT ON SEQUENCE ${ident(s.seq)} TO ${to.join(", ")}`);
  }
  for (const s of STANDALONE_SEQUENCES) out.push(`GRANT USAGE, SELECT ON SEQUENCE ${ident(s)} TO ${both}`);
  // pg-boss: its schema stays the owner's; QUEUE_ROLE creates and owns what is in it.
  out.push(`GRANT USAGE ON SCHEMA pgboss TO ${both}`, `GRANT USAGE, CREATE ON SCHEMA pgboss TO ${QUEUE_ROLE}`);
  return out;
}

/** Applies the declaration in one transaction (idempotent; run by the owner or a superuser after the migrations). */
export async function applyGrants(db: Queryable, roles: AppRoles): Promise<void> {
  const statements = await grantStatements(db, roles);
  await db.query("BEGIN");
  try {
    for (const s of statements) await db.query(s);
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
