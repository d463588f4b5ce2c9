// The grants declaration (core/db/grants.ts) covers the whole schema: a migration that adds a table, view,
// sequence or function without declaring who may use it fails here, and what the roles hold in the database is
// exactly what is declared (nothing more: no TRUNCATE, REFERENCES or TRIGGER anywhere).
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../test/db";
import { runAs, setUpRoleDatabase, type RoleUrls } from "../../test/role-database";
import { FUNCTION_GRANTS, STANDALONE_SEQUENCES, TABLE_GRANTS } from "./grants";

const db = useTestDatabase("grants");
let roles: RoleUrls;

beforeAll(async () => {
  roles = await setUpRoleDatabase(db.adminUrl, db.url);
});

const NOT_EXTENSION = (catalog: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

describe("the grants declaration covers the schema", () => {
  it("names every table and view of the public schema, and nothing that does not exist", async () => {
    const { rows } = await runAs(
      db.url,
      `SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
          AND ${NOT_EXTENSION("pg_class", "c.oid")} ORDER BY 1`,
    );
    expect(rows.map((r) => r.relname)).toEqual(Object.keys(TABLE_GRANTS).sort());
  });

  it("names every sequence that belongs to no table", async () => {
    const { rows } = await runAs(
      db.url,
      `SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
        ORDER BY 1`,
    );
    expect(rows.map((r) => r.relname)).toEqual([...STANDALONE_SEQUENCES].sort());
  });

  it("names every function Vigil defines, and nothing that does not exist", async () => {
    const { rows } = await runAs(
      db.url,
      `SELECT DISTINCT p.proname FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND ${NOT_EXTENSION("pg_proc", "p.oid")} ORDER BY 1`,
    );
    expect(rows.map((r) => r.proname)).toEqual(Object.keys(FUNCTION_GRANTS).sort());
  });
});

describe("the roles hold exactly what is declared", () => {
  const PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"];
  for (const role of ["console", "worker"] as const) {
    it(`${role}: table privileges`, async () => {
      const { rows } = await runAs(
        roles.owner,
        `SELECT t AS table, p AS privilege FROM unnest($1::text[]) t, unnest($2::text[]) p
          WHERE has_table_privilege($3, format('%I', t), p) ORDER BY 1, 2`,
        [Object.keys(TABLE_GRANTS), PRIVILEGES, roles.logins[role].user],
      );
      const held = rows.map((r) => `${r.table} ${r.privilege}`);
      const declared = Object.entries(TABLE_GRANTS)
        .flatMap(([t, g]) => g[role].map((p) => `${t} ${p}`))
        .sort();
      // run_events / run_logs: the worker acts as their owner (HISTORY_ROLE) for retention's partition work.
      const expected = role === "worker" ? [...new Set([...declared, ...historyOwnerPrivileges(PRIVILEGES)])].sort() : declared;
      expect(held.sort()).toEqual(expected);
    });

    it(`${role}: function EXECUTE`, async () => {
      const { rows } = await runAs(
        roles.owner,
        `SELECT DISTINCT p.proname FROM pg_proc p
          WHERE p.pronamespace = 'public'::regnamespace AND ${NOT_EXTENSION("pg_proc", "p.oid")}
            AND has_function_privilege($1, p.oid, 'EXECUTE') ORDER BY 1`,
        [roles.logins[role].user],
      );
      const declared = Object.entries(FUNCTION_GRANTS)
        .filter(([, g]) => g[role])
        .map(([f]) => f)
        .sort();
      expect(rows.map((r) => r.proname)).toEqual(declared);
    });
  }
});

function historyOwnerPrivileges(privileges: string[]): string[] {
  return ["run_events", "run_logs"].flatMap((t) => privileges.map((p) => `${t} ${p}`));
}
