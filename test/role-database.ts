// A test database whose console and worker connect with their least-privilege roles (core/db/grants.ts), set up
// by the same code `npm start` runs for the embedded server (scripts/lib/prepare-database.ts). Login roles are
// cluster-wide: each call makes its own (random names and passwords), so test files running at once never clash.
import crypto from "node:crypto";
import pg from "pg";
import { migrate } from "../core/db/migrate";
import type { DatabaseLogins, RoleLogin } from "../scripts/lib/database-roles";
import { setUpEmbeddedRoles } from "../scripts/lib/prepare-database";

export interface RoleUrls {
  owner: string;
  console: string;
  worker: string;
  logins: DatabaseLogins;
}

export function asLogin(url: string, who: RoleLogin): string {
  const u = new URL(url);
  u.username = encodeURIComponent(who.user);
  u.password = encodeURIComponent(who.password);
  return u.toString();
}

/** Sets up the roles on `url` (a database of the test cluster, `adminUrl` its superuser's URL) and returns their URLs. */
export async function setUpRoleDatabase(adminUrl: string, url: string): Promise<RoleUrls> {
  const tag = crypto.randomBytes(4).toString("hex");
  const login = (role: string) => ({ user: `vigil_${role}_${tag}`, password: crypto.randomBytes(18).toString("base64url") });
  const logins: DatabaseLogins = { owner: login("owner"), console: login("console"), worker: login("worker") };
  const superUrl = asLogin(url, { user: new URL(adminUrl).username, password: decodeURIComponent(new URL(adminUrl).password) });
  await setUpEmbeddedRoles(superUrl, logins, async () => {
    await migrate(asLogin(url, logins.owner), { onNotice: () => {} });
  });
  return { owner: asLogin(url, logins.owner), console: asLogin(url, logins.console), worker: asLogin(url, logins.worker), logins };
}

/** Runs one statement on a fresh connection as `url`'s login. */
export async function runAs(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql, values);
  } finally {
    await c.end();
  }
}
