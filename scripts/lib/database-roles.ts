// The database roles of a Vigil database (docs/how-to/database-roles.md), made by a superuser: the owner that runs
// the migrations, the console's and the worker's LOGIN roles, and the two NOLOGIN roles that own the history
// tables and pg-boss's objects. ensureRoles and handOverObjects are idempotent: `npm start` runs them at every start
// of the embedded server, which is also how a database made by an older release (everything owned by the
// superuser) is upgraded in place. The grants themselves are declared in core/db/grants.ts.
import type pg from "pg";
import { HISTORY_ROLE, HISTORY_TABLES, QUEUE_ROLE } from "../../core/db/grants";

export interface RoleLogin {
  user: string;
  password: string;
}

export interface DatabaseLogins {
  owner: RoleLogin;
  console: RoleLogin;
  worker: RoleLogin;
}

const LOGIN_ATTRS = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT";

async function roleExists(db: pg.ClientBase, name: string): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [name]);
  return (rowCount ?? 0) > 0;
}

/** Creates (or resets the password and attributes of) the LOGIN roles and the NOLOGIN owner roles. */
export async function ensureRoles(db: pg.ClientBase, logins: DatabaseLogins): Promise<void> {
  for (const l of [logins.owner, logins.console, logins.worker]) {
    const verb = (await roleExists(db, l.user)) ? "ALTER" : "CREATE";
    await db.query(`${verb} ROLE ${db.escapeIdentifier(l.user)} WITH ${LOGIN_ATTRS} PASSWORD ${db.escapeLiteral(l.password)}`);
  }
  for (const r of [HISTORY_ROLE, QUEUE_ROLE]) {
    if (!(await roleExists(db, r))) await db.query(`CREATE ROLE ${r} NOLOGIN NOINHERIT`);
  }
  const id = (n: string) => db.escapeIdentifier(n);
  // The worker's retention manages day partitions as HISTORY_ROLE; the owner creates them for it.
  await db.query(`GRANT ${HISTORY_ROLE} TO ${id(logins.worker.user)}, ${id(logins.owner.user)}`);
  await db.query(`GRANT ${QUEUE_ROLE} TO ${id(logins.console.user)}, ${id(logins.worker.user)}, ${id(logins.owner.user)}`);
  // The owner ends a run's sessions for whoever cancels it (vigil_terminate_run_sessions); the roles themselves cannot.
  await db.query(`GRANT pg_signal_backend TO ${id(logins.owner.user)}`);
  // No application role is a member of another's: the console cannot act as the worker nor the other way round.
  for (const [member, of] of [
    [logins.console, logins.worker],
    [logins.worker, logins.console],
    [logins.console, logins.owner],
    [logins.worker, logins.owner],
  ] as const) {
    await db.query(`REVOKE ${id(of.user)} FROM ${id(member.user)}`).catch(() => undefined);
  }
}

/**
 * Makes the roles own what they should in `database` (connected to it as a superuser, or as the owner of an external
 * database with `databaseLevel: false`): the database and every object of Vigil's schema → owner; the history
 * tables and their partitions → HISTORY_ROLE; pg-boss's objects → QUEUE_ROLE (its schema stays the owner's). Only
 * objects with another owner are changed. One transaction: HISTORY_ROLE may create in the public schema (which a
 * new owner must) only inside it, so the worker, acting as HISTORY_ROLE, never can.
 */
export async function handOverObjects(
  db: pg.ClientBase,
  database: string,
  logins: { owner: { user: string }; console: { user: string }; worker: { user: string } },
  opts: { databaseLevel: boolean } = { databaseLevel: true },
): Promise<void> {
  const owner = db.escapeIdentifier(logins.owner.user);
  await db.query("BEGIN");
  try {
    if (opts.databaseLevel) {
      await db.query(`ALTER DATABASE ${db.escapeIdentifier(database)} OWNER TO ${owner}`);
      await db.query(`REVOKE ALL ON DATABASE ${db.escapeIdentifier(database)} FROM PUBLIC`);
      await db.query(
        `GRANT CONNECT, TEMPORARY ON DATABASE ${db.escapeIdentifier(database)} TO ${owner}, ${db.escapeIdentifier(logins.console.user)}, ${db.escapeIdentifier(logins.worker.user)}`,
      );
      await db.query(`CREATE SCHEMA IF NOT EXISTS pgboss AUTHORIZATION ${owner}`);
      await db.query(`ALTER SCHEMA pgboss OWNER TO ${owner}`);
    }
    await db.query(`GRANT USAGE, CREATE ON SCHEMA pgboss TO ${QUEUE_ROLE}`);
    await db.query(`GRANT CREATE ON SCHEMA public TO ${HISTORY_ROLE}`);
    await handOver(db, logins.owner.user);
    await db.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC, ${HISTORY_ROLE}`);
    await db.query("COMMIT");
  } catch (err) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

async function handOver(db: pg.ClientBase, owner: string): Promise<void> {
  const { rows } = await db.query<{ kind: string; name: string; target: string }>(
    `WITH objs AS (
       SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind,
              c.oid::regclass::text AS name, c.relowner AS cur,
              CASE WHEN n.nspname = 'pgboss' THEN $2
                   WHEN c.relname = ANY($4::text[])
                     OR EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
                                 WHERE i.inhrelid = c.oid AND p.relname = ANY($4::text[])) THEN $3
                   ELSE $1 END AS target
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('public', 'pgboss') AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                             AND (d.deptype = 'e' OR (c.relkind = 'S' AND d.deptype IN ('a', 'i'))))
       UNION ALL
       SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, p.oid::regprocedure::text, p.proowner,
              CASE WHEN n.nspname = 'pgboss' THEN $2 ELSE $1 END
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname IN ('public', 'pgboss')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       UNION ALL
       SELECT 'TYPE', t.oid::regtype::text, t.typowner, CASE WHEN n.nspname = 'pgboss' THEN $2 ELSE $1 END
         FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname IN ('public', 'pgboss') AND t.typtype IN ('e', 'd', 'c', 'r') AND t.typrelid = 0
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
     )
     SELECT kind, name, target FROM objs o WHERE o.cur <> (SELECT oid FROM pg_roles WHERE rolname = o.target)
      ORDER BY (kind = 'TABLE') DESC`,
    [owner, QUEUE_ROLE, HISTORY_ROLE, HISTORY_TABLES],
  );
  for (const r of rows) await db.query(`ALTER ${r.kind} ${r.name} OWNER TO ${db.escapeIdentifier(r.target)}`);
}
