// A team's shares as the API shows and changes them: the owner team's admin (or the global admin) shares one of the
// team's calendars, secrets or concurrency groups with one other team or with every team, and revokes it. A schedule
// of the receiving team may then refer to it (core/teams/cross-team-references.ts checks each save against these
// rows), and a shared calendar is visible to it read-only (core/teams/object-team.ts). Every change is audited
// (target "team", the owner team) in its transaction. Deleting a shared object removes its shares in the delete's
// transaction (dropSharesOfDeletedObject): a share names its object by key, and a secret or group of the same name
// created later must not inherit it.
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, type Queryable } from "../db/pool";
import { ConflictError, NotFoundError, ValidationError } from "../errors";
import { assertTeamRole, teamRoleOf } from "./team-access";
import { findTeam } from "./resolve-team";

export const SHARE_KINDS = ["calendar", "secret", "concurrency_group"] as const;
export type ShareKind = (typeof SHARE_KINDS)[number];

const KIND_WORDS: Record<ShareKind, string> = { calendar: "calendar", secret: "secret", concurrency_group: "concurrency group" };

export const shareInputSchema = z.strictObject({
  kind: z.enum(SHARE_KINDS, { error: "kind must be calendar, secret or concurrency_group" }),
  /** A calendar's name or id, a secret's name, a concurrency group's name. */
  object: z
    .string({ error: "object must be the name of the object to share" })
    .trim()
    .min(1, { error: "object: name the object to share" })
    .max(200),
  /** A team's name or id; null shares with every team. */
  withTeam: z.string({ error: "withTeam must be a team's name or id, or null for every team" }).trim().min(1).max(200).nullable(),
});
export type ShareInput = z.output<typeof shareInputSchema>;

export interface TeamShareView {
  id: string;
  kind: ShareKind;
  /** How schedules refer to it: a calendar's id, a secret's or group's name. */
  objectKey: string;
  /** What people call it: a calendar's name, a secret's or group's name (null when the object is gone). */
  objectName: string | null;
  ownerTeamId: string;
  ownerTeam: string;
  /** null: every team. */
  sharedWithTeamId: string | null;
  sharedWithTeam: string | null;
  createdAt: Date;
  createdBy: string;
}

export interface TeamSharesView {
  team: string;
  /** What this team shares. */
  given: TeamShareView[];
  /** What other teams share with this team (or with every team). */
  received: TeamShareView[];
  /** The teams a share may go to (every other team), for the team's admins; empty for other members. */
  targets: { id: string; name: string }[];
}

const SHARE_COLUMNS = `sh.id, sh.kind, sh.object_key AS "objectKey",
  CASE sh.kind WHEN 'calendar' THEN (SELECT c.name FROM calendars c WHERE c.id::text = sh.object_key AND c.team_id = sh.owner_team_id)
               WHEN 'secret' THEN (SELECT s.name FROM secrets s WHERE s.name = sh.object_key AND s.team_id = sh.owner_team_id)
               ELSE (SELECT g.name FROM concurrency_groups g WHERE g.name = sh.object_key AND g.team_id = sh.owner_team_id) END AS "objectName",
  sh.owner_team_id AS "ownerTeamId", o.name AS "ownerTeam", sh.shared_with_team_id AS "sharedWithTeamId", w.name AS "sharedWithTeam",
  sh.created_at AS "createdAt", sh.created_by AS "createdBy"`;
const SHARE_FROM = `team_shares sh JOIN teams o ON o.id = sh.owner_team_id LEFT JOIN teams w ON w.id = sh.shared_with_team_id`;

/** The team's shares, given and received (the route has checked the caller is a member, or the global admin). */
export async function listTeamShares(db: Queryable, teamId: string, actor: Actor): Promise<TeamSharesView> {
  const team = await findTeam(db, teamId);
  if (!team) throw new NotFoundError("Team", teamId);
  const { rows: given } = await db.query<TeamShareView>(
    `SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM} WHERE sh.owner_team_id = $1 ORDER BY sh.kind, "objectName", w.name NULLS FIRST`,
    [teamId],
  );
  const { rows: received } = await db.query<TeamShareView>(
    `SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM}
      WHERE sh.owner_team_id <> $1 AND (sh.shared_with_team_id = $1 OR sh.shared_with_team_id IS NULL)
      ORDER BY o.name, sh.kind, "objectName"`,
    [teamId],
  );
  const admin = teamRoleOf(actor, teamId) === "admin";
  const { rows: targets } = admin
    ? await db.query<{ id: string; name: string }>(`SELECT id, name FROM teams WHERE id <> $1 ORDER BY name`, [teamId])
    : { rows: [] };
  return { team: team.name, given, received, targets };
}

/**
 * The object's key as schedules refer to it and its team, or null when there is none of that kind and name. The row is
 * locked (FOR SHARE) until the share commits: a delete of the object waits and then takes the new share with it.
 */
async function findShareable(db: Queryable, kind: ShareKind, ref: string): Promise<{ key: string; name: string; teamId: string } | null> {
  const sql: Record<ShareKind, string> = {
    calendar: `SELECT id::text AS key, name, team_id AS "teamId" FROM calendars WHERE lower(name) = lower($1) OR id::text = lower($1) LIMIT 1 FOR SHARE`,
    secret: `SELECT name AS key, name, team_id AS "teamId" FROM secrets WHERE name = $1 FOR SHARE`,
    concurrency_group: `SELECT name AS key, name, team_id AS "teamId" FROM concurrency_groups WHERE name = $1 FOR SHARE`,
  };
  const { rows } = await db.query<{ key: string; name: string; teamId: string }>(sql[kind], [ref]);
  return rows[0] ?? null;
}

/**
 * Shares an object of the team with another team (or every team): the team's admin or the global admin. Refused with
 * 422 when the object is unknown or not this team's (its owner named only to a caller who belongs to it), or when the
 * target team is unknown or the team itself; 409 when the same share exists.
 */
export async function shareTeamObject(teamId: string, input: ShareInput, actor: Actor): Promise<TeamShareView> {
  return inTransaction({}, async (tx) => {
    const { rows: t } = await tx.query<{ name: string }>(`SELECT name FROM teams WHERE id = $1 FOR UPDATE`, [teamId]);
    if (!t[0]) throw new NotFoundError("Team", teamId);
    assertTeamRole(actor, teamId, "admin", "Team", teamId);
    const word = KIND_WORDS[input.kind];
    const object = await findShareable(tx, input.kind, input.object);
    if (!object || (object.teamId !== teamId && teamRoleOf(actor, object.teamId) === null)) {
      const message = `Team ${t[0].name} has no ${word} named ${input.object}.`;
      throw new ValidationError(message, { object: message }, "unknown_object");
    }
    if (object.teamId !== teamId) {
      const owner = await findTeam(tx, object.teamId);
      const message = `The ${word} ${object.name} belongs to team ${owner?.name ?? object.teamId}, not ${t[0].name}: only its own team shares it.`;
      throw new ValidationError(message, { object: message }, "not_your_team");
    }
    let withTeam: { id: string; name: string } | null = null;
    if (input.withTeam !== null) {
      withTeam = await findTeam(tx, input.withTeam);
      if (!withTeam) {
        const message = `No team named ${input.withTeam}.`;
        throw new ValidationError(message, { withTeam: message }, "unknown_team");
      }
      if (withTeam.id === teamId) {
        const message = `The ${word} is team ${t[0].name}'s already: share it with another team.`;
        throw new ValidationError(message, { withTeam: message }, "own_team");
      }
    }
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO team_shares (owner_team_id, kind, object_key, shared_with_team_id, created_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ON CONSTRAINT team_shares_once DO NOTHING RETURNING id`,
      [teamId, input.kind, object.key, withTeam?.id ?? null, actor.label],
    );
    const id = rows[0]?.id;
    const target = withTeam ? `team ${withTeam.name}` : "every team";
    if (!id)
      throw new ConflictError(`The ${word} ${object.name} is already shared with ${target}.`, "already_shared", {
        withTeam: "Already shared.",
      });
    await recordAudit(tx, {
      actor,
      action: "team.share",
      targetType: "team",
      targetId: teamId,
      after: { kind: input.kind, object: object.name, objectKey: object.key, sharedWith: withTeam?.name ?? null },
    });
    const { rows: view } = await tx.query<TeamShareView>(`SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM} WHERE sh.id = $1`, [id]);
    return view[0]!;
  });
}

/** Revokes one of the team's shares (its admin or the global admin): schedules saved from now on may no longer refer to
 * the object; ones saved before keep running as saved. */
export async function revokeTeamShare(teamId: string, shareId: string, actor: Actor): Promise<TeamShareView> {
  return inTransaction({}, async (tx) => {
    assertTeamRole(actor, teamId, "admin", "Team", teamId);
    const { rows } = await tx.query<TeamShareView>(
      `SELECT ${SHARE_COLUMNS} FROM ${SHARE_FROM} WHERE sh.id = $1 AND sh.owner_team_id = $2 FOR UPDATE OF sh`,
      [shareId, teamId],
    );
    const share = rows[0];
    if (!share) throw new NotFoundError("Share", shareId);
    await tx.query(`DELETE FROM team_shares WHERE id = $1`, [shareId]);
    await recordAudit(tx, {
      actor,
      action: "team.unshare",
      targetType: "team",
      targetId: teamId,
      before: {
        kind: share.kind,
        object: share.objectName ?? share.objectKey,
        objectKey: share.objectKey,
        sharedWith: share.sharedWithTeam,
      },
    });
    return share;
  });
}

/**
 * Removes the shares of an object its team deletes (the caller's delete transaction), each audited as team.unshare
 * with the deletion as its reason, so the audit trail shows when the receiving teams lost it. Returns how many went.
 */
export async function dropSharesOfDeletedObject(
  tx: Queryable,
  object: { kind: ShareKind; key: string; name: string; teamId: string },
  actor: Actor,
): Promise<number> {
  const { rows } = await tx.query<{ sharedWith: string | null }>(
    `DELETE FROM team_shares sh
      WHERE sh.owner_team_id = $1 AND sh.kind = $2 AND sh.object_key = $3
      RETURNING (SELECT w.name FROM teams w WHERE w.id = sh.shared_with_team_id) AS "sharedWith"`,
    [object.teamId, object.kind, object.key],
  );
  const sorted = rows.map((r) => r.sharedWith).sort((a, b) => (a ?? "").localeCompare(b ?? ""));
  for (const sharedWith of sorted) {
    await recordAudit(tx, {
      actor,
      action: "team.unshare",
      targetType: "team",
      targetId: object.teamId,
      before: { kind: object.kind, object: object.name, objectKey: object.key, sharedWith },
      reason: `the ${KIND_WORDS[object.kind]} ${object.name} was deleted`,
    });
  }
  return rows.length;
}
