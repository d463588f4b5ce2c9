// A console or worker connected as a superuser (or the owner of everything) defeats the least-privilege roles
// (docs/how-to/database-roles.md): anyone who reads its credentials can rewrite the audit trail. Still allowed (a
// single DATABASE_URL keeps working as before), but said at every start.
import type { Queryable } from "./pool";

/** The warning for this connection's login, or null when it is an ordinary role. */
export async function superuserWarning(db: Queryable, who: string): Promise<string | null> {
  const { rows } = await db.query<{ user: string; superuser: boolean }>(
    `SELECT current_user AS user, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`,
  );
  const r = rows[0];
  if (!r?.superuser) return null;
  return `the ${who} connects to PostgreSQL as ${r.user}, a superuser: whoever reads its credentials can rewrite the audit trail. Give it its own role (docs/how-to/database-roles.md)`;
}
