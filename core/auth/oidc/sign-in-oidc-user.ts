// Signs in the person the provider vouched for: find their Vigil user by the provider's issuer and
// subject (or, the first time, by a verified email), create one without a password if there is none,
// set the role from the mapped claim at every sign-in (except a demotion of the last active admin, refused and
// audited), open a normal session and audit it all.
// A refusal (no mapped role, disabled) is audited and committed before it is reported.
import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool";
import { recordAudit } from "../../audit/record-audit";
import type { ClientInfo } from "../login";
import { type Actor, type Role } from "../roles";
import { createSession, type NewSession } from "../sessions";
import { toUserRecord, USER_COLUMNS, type UserRecord, type UserRow as StoredUserRow } from "../user-record";
import { OidcLoginError, type OidcErrorCode } from "./oidc-login-error";
import type { OidcSettings } from "./oidc-settings";
import { emailSchema } from "../user-input";
import { hasAnotherActiveAdmin } from "../update-user";
import { getLogger } from "../../log";
import { claimValues, mapRole } from "./role-map";
import { mapTeamRoles } from "./team-rules";
import { handOverLinkedDefaultTeamRole, ssoDefaultTeamRoles, syncSsoTeamRoles } from "./sync-sso-team-roles";

export function ssoActor(label: string, c: ClientInfo): Actor {
  return { type: "system", id: null, label, role: "admin", ip: c.ip ?? null, userAgent: c.userAgent ?? null };
}

type UserRow = StoredUserRow & { oidc_issuer: string | null };

function text(v: unknown, max: number): string | null {
  return typeof v === "string" && v.trim() ? v.trim().slice(0, max) : null;
}

function displayName(v: unknown): string | null {
  const cleaned = text(v, 200)
    ?.replace(/[^\p{L}\p{M}\p{N} .,'’()\-_@:/+#]/gu, "")
    .trim()
    .slice(0, 100);
  return cleaned ? cleaned : null;
}

async function findUser(tx: Queryable, issuer: string, sub: string, email: string | null, emailVerified: boolean) {
  const cols = `${USER_COLUMNS}, oidc_issuer`;
  const bySub = await tx.query<UserRow>(`SELECT ${cols} FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2 FOR UPDATE`, [issuer, sub]);
  if (bySub.rows[0]) return { row: bySub.rows[0], link: false, emailTaken: false };
  if (!email) return { row: null, link: false, emailTaken: false };
  const byEmail = await tx.query<UserRow>(`SELECT ${cols} FROM users WHERE email = $1 FOR UPDATE`, [email]);
  const found = byEmail.rows[0];
  if (!found) return { row: null, link: false, emailTaken: false };
  // An existing local account becomes this identity's only when the provider vouches for the address and the
  // account is not already another identity's: otherwise whoever controls a provider account could take it over.
  if (found.oidc_issuer !== null || !emailVerified) return { row: null, link: false, emailTaken: true };
  return { row: found, link: true, emailTaken: false };
}

export async function signInOidcUser(
  pool: pg.Pool,
  settings: OidcSettings,
  issuer: string,
  claims: Record<string, unknown>,
  c: ClientInfo,
): Promise<{ user: UserRecord; session: NewSession }> {
  const sub = String(claims.sub);
  // An address Vigil would not accept from an admin is no address (refused as no_email when one is needed).
  const parsedEmail = emailSchema.safeParse(text(claims.email, 254) ?? "");
  const email = parsedEmail.success ? parsedEmail.data : null;
  const emailVerified = claims.email_verified !== false && claims.email_verified !== "false";
  // Held to the characters a name typed on the Admin page may have (no markup, quotes or control characters).
  const name = displayName(claims.name) ?? displayName(claims.preferred_username);
  // Email rules believe only an address the provider says it verified.
  const verified = claims.email_verified === true || claims.email_verified === "true";
  const teamRoles = mapTeamRoles(settings.teamRules, claims, verified ? email : null);
  // A person the team rules let in is a viewer outside their teams' roles when the role map names them not
  // (users.role grants nothing beyond a team's role unless it is admin).
  const mapped = mapRole(settings.roleMap, claimValues(claims, settings.roleClaim));
  let role = mapped ?? (teamRoles.size > 0 ? "viewer" : null);
  // Without team rules the role map's viewer or operator is the person's role in the default team (as the global role
  // was before teams); with them the rules alone give team roles and the role map only decides who may sign in.
  // Either way syncSsoTeamRoles writes them, under its one rule (a manual membership wins, a change is audited).
  const teamsByRules = settings.teamRules.length > 0;
  const label = email ?? `${sub} at ${settings.name}`;
  const sso = ssoActor(`sso:${settings.name}`, c);

  const result = await withTransaction(async (tx): Promise<{ refused: OidcErrorCode } | { user: UserRecord; session: NewSession }> => {
    const refuse = async (outcome: OidcErrorCode, userId: string | null) => {
      await recordAudit(tx, {
        actor: { type: "anonymous", id: null, label, role: "viewer", ip: c.ip ?? null, userAgent: c.userAgent ?? null },
        action: "auth.login_failure",
        targetType: "user",
        targetId: userId,
        after: { method: "oidc", provider: settings.name, outcome, ...(outcome === "no_role" ? { claim: settings.roleClaim } : {}) },
      });
      return { refused: outcome };
    };
    const found = await findUser(tx, issuer, sub, email, emailVerified);
    if (found.emailTaken) return refuse("email_taken", null);
    let row = found.row;

    if (role === null) {
      // Removed from every mapped group at the provider: their open sessions end here too, not at expiry.
      if (row && !found.link) await tx.query(`DELETE FROM sessions WHERE user_id = $1`, [row.id]);
      return refuse("no_role", row?.id ?? null);
    }
    if (row?.disabled_at) return refuse("disabled", row.id);

    if (!row) {
      if (!email) return refuse("no_email", null);
      const inserted = await tx.query<UserRow>(
        `INSERT INTO users (email, name, password_hash, role, oidc_issuer, oidc_subject) VALUES ($1, $2, NULL, $3, $4, $5)
         ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}, oidc_issuer`,
        [email, name ?? "", role, issuer, sub],
      );
      if (!inserted.rows[0]) return refuse("email_taken", null);
      row = inserted.rows[0];
      await recordAudit(tx, {
        actor: sso,
        action: "user.create",
        targetType: "user",
        targetId: row.id,
        after: { email, name: name ?? "", role, via: "oidc" },
        reason: `first sign-in through ${settings.name}`,
      });
    } else {
      const before = toUserRecord(row);
      // The last active admin is not demoted by a sign-in (a provider-side group change would otherwise lock every
      // admin out of Vigil): they keep admin, and the refusal is audited and logged for someone to fix the groups.
      if (before.role === "admin" && role !== "admin" && !before.disabled && !(await hasAnotherActiveAdmin(tx, row.id))) {
        getLogger().warn(
          { userId: row.id, email: before.email, provider: settings.name, mappedRole: role },
          "single sign-on would demote the last active admin: kept admin",
        );
        await recordAudit(tx, {
          actor: sso,
          action: "user.sso_demotion_refused",
          targetType: "user",
          targetId: row.id,
          before: { role: before.role },
          after: { role, claim: settings.roleClaim },
          reason: "the last active admin: make another user admin first",
        });
        role = "admin";
      }
      // A changed address at the provider follows, unless another Vigil user has it.
      const { rows: updated } = await tx.query<UserRow>(
        `UPDATE users SET role = $2, name = COALESCE($3, name),
                email = CASE WHEN $4::text IS NULL OR EXISTS (SELECT 1 FROM users o WHERE o.email = $4 AND o.id <> $1) THEN email ELSE $4 END,
                oidc_issuer = $5, oidc_subject = $6, updated_at = clock_timestamp()
          WHERE id = $1 RETURNING ${USER_COLUMNS}, oidc_issuer`,
        [row.id, role, name, email, issuer, sub],
      );
      row = updated[0]!;
      const audit = (action: string, b: unknown, a: unknown) =>
        recordAudit(tx, {
          actor: sso,
          action,
          targetType: "user",
          targetId: row!.id,
          before: b,
          after: a,
          reason: `sign-in through ${settings.name}`,
        });
      if (found.link) {
        await audit("user.sso_link", undefined, { email: before.email, provider: settings.name });
        if (!teamsByRules) await handOverLinkedDefaultTeamRole(tx, row.id, before.role);
      }
      if (before.role !== role) await audit("user.role_change", { role: before.role }, { role, claim: settings.roleClaim });
    }

    // A last admin kept admin above holds no default-team membership from the role map.
    const ssoTeamRoles = teamsByRules ? teamRoles : await ssoDefaultTeamRoles(tx, role === "admin" ? "admin" : mapped);
    await syncSsoTeamRoles(tx, row.id, ssoTeamRoles, sso, settings.name);
    const user = toUserRecord(row);
    const session = await createSession(tx, user.id, c);
    const actor: Actor = {
      type: "user",
      id: user.id,
      label: user.email,
      role: role as Role,
      ip: c.ip ?? null,
      userAgent: c.userAgent ?? null,
    };
    await recordAudit(tx, {
      actor,
      action: "auth.login",
      targetType: "user",
      targetId: user.id,
      after: { method: "oidc", provider: settings.name },
    });
    return { user, session };
  }, pool);

  if ("refused" in result) throw new OidcLoginError(result.refused, settings.name);
  return result;
}
