// Alert channels as admins edit them. A channel's secrets go to the secret store (core/secrets/secret-store.ts)
// under a name derived from the channel's id, with no schedule allowed to use them; the channel row keeps only
// those names. No answer, audit row or log line carries a secret's value: the view says which secrets are set.
import type { Actor } from "../../auth/roles";
import { recordAudit } from "../../audit/record-audit";
import { inTransaction, type Queryable } from "../../db/pool";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { deleteSecret, setSecret } from "../../secrets/secret-store";
import { findTeam, resolveTeamForCreate } from "../../teams/resolve-team";
import {
  ALERT_CHANNEL_TYPE_INFO,
  CHANNEL_SETTINGS_SCHEMAS,
  REQUIRED_CHANNEL_SECRETS,
  type AlertChannelType,
  type AlertChannelView,
  type ChannelInput,
  type ChannelRouting,
  type ChannelSecretField,
  type ChannelSettings,
} from "./alert-channel-types";

export type ChannelSecretRefs = Partial<Record<ChannelSecretField, string>>;

export interface AlertChannelRow {
  id: string;
  name: string;
  team_id: string;
  /** The owning team's name. */
  team: string;
  type: AlertChannelType;
  settings: Record<string, unknown>;
  secret_refs: ChannelSecretRefs;
  kinds: string[];
  schedule_ids: string[];
  tags: string[];
  enabled: boolean;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

const COLUMNS = `id, name, team_id, (SELECT t.name FROM teams t WHERE t.id = team_id) AS team, type, settings, secret_refs, kinds, schedule_ids, tags, enabled, created_at, created_by, updated_at, updated_by`;

const SECRET_SUFFIX: Record<ChannelSecretField, string> = { password: "PASSWORD", routingKey: "ROUTING_KEY", url: "URL" };

/** The secret store's name for one secret of a channel, e.g. ALERT_CHANNEL_<id in hex>_ROUTING_KEY. */
export const channelSecretName = (channelId: string, field: ChannelSecretField) =>
  `ALERT_CHANNEL_${channelId.replace(/-/g, "").toUpperCase()}_${SECRET_SUFFIX[field]}`;

export function toChannelView(r: AlertChannelRow): AlertChannelView {
  return {
    id: r.id,
    name: r.name,
    team: r.team,
    type: r.type,
    settings: r.settings,
    secrets: Object.fromEntries(ALERT_CHANNEL_TYPE_INFO[r.type].secrets.map((f) => [f, Boolean(r.secret_refs[f])])),
    routing: { kinds: r.kinds, scheduleIds: r.schedule_ids, tags: r.tags },
    enabled: r.enabled,
    createdAt: r.created_at,
    createdBy: r.created_by,
    updatedAt: r.updated_at,
    updatedBy: r.updated_by,
  };
}

/** teamIds: only these teams' channels (core/teams/team-access.ts visibleTeamIds); null: every team's. */
export async function listAlertChannels(db: Queryable, teamIds: readonly string[] | null = null): Promise<AlertChannelView[]> {
  const { rows } = await db.query<AlertChannelRow>(
    `SELECT ${COLUMNS} FROM alert_channels WHERE $1::uuid[] IS NULL OR team_id = ANY($1::uuid[]) ORDER BY name`,
    [teamIds ? [...teamIds] : null],
  );
  return rows.map(toChannelView);
}

export async function findAlertChannelRow(db: Queryable, id: string, lock = false): Promise<AlertChannelRow | null> {
  const { rows } = await db.query<AlertChannelRow>(`SELECT ${COLUMNS} FROM alert_channels WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  return rows[0] ?? null;
}

export async function getAlertChannelRowOrThrow(db: Queryable, id: string, lock = false): Promise<AlertChannelRow> {
  const row = await findAlertChannelRow(db, id, lock);
  if (!row) throw new NotFoundError("Alert channel", id);
  return row;
}

export function parseChannelSettings(type: AlertChannelType, settings: unknown): ChannelSettings {
  const parsed = CHANNEL_SETTINGS_SCHEMAS[type].safeParse(settings);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    `The settings of a ${ALERT_CHANNEL_TYPE_INFO[type].label} channel are not valid.`,
    Object.fromEntries(parsed.error.issues.map((i) => [["settings", ...i.path].join("."), i.message])),
  );
}

/** Routing names only the channel's team's schedules: another team's are as unknown as ones that do not exist. */
async function checkScheduleIds(db: Queryable, routing: ChannelRouting, teamId: string): Promise<void> {
  if (routing.scheduleIds.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM schedules WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL AND team_id = $2`,
    [routing.scheduleIds, teamId],
  );
  const unknown = routing.scheduleIds.filter((id) => !rows.some((r) => r.id === id));
  if (unknown.length > 0)
    throw new ValidationError("Routing names schedules that do not exist.", { "routing.scheduleIds": unknown.join(", ") });
}

/**
 * Stores the secrets given for the type's fields (each its own secret-store entry, which no schedule may use), keeps
 * the stored ones not given, and answers the channel's refs after. Values given for another type's fields are ignored.
 */
async function storeSecrets(
  tx: Queryable,
  channel: { id: string; teamId: string },
  type: AlertChannelType,
  input: ChannelInput,
  before: ChannelSecretRefs,
  actor: Actor,
) {
  const refs: ChannelSecretRefs = {};
  for (const field of ALERT_CHANNEL_TYPE_INFO[type].secrets) {
    const value = input.secrets[field];
    if (value !== undefined) {
      const name = channelSecretName(channel.id, field);
      await setSecret(name, value, actor, { db: tx, teamId: channel.teamId });
      refs[field] = name;
    } else if (before[field]) refs[field] = before[field];
  }
  const missing = REQUIRED_CHANNEL_SECRETS[type].filter((f) => !refs[f]);
  if (missing.length > 0)
    throw new ValidationError(
      `A ${ALERT_CHANNEL_TYPE_INFO[type].label} channel needs ${missing.join(", ")}.`,
      Object.fromEntries(missing.map((f) => [`secrets.${f}`, `${f} is required`])),
    );
  return refs;
}

function uniqueName<T>(p: Promise<T>, name: string): Promise<T> {
  return p.catch((err: { code?: string; constraint?: string }) => {
    if (err.code === "23505" && err.constraint === "alert_channels_name_key")
      throw new ConflictError(`An alert channel named "${name}" already exists.`, "channel_name_taken");
    throw err;
  });
}

/** The columns a create and an update both write, in the order of $2… of their statements. */
function channelValues(input: ChannelInput, settings: ChannelSettings, refs: ChannelSecretRefs, actor: Actor): unknown[] {
  return [
    input.name,
    JSON.stringify(settings),
    JSON.stringify(refs),
    input.routing.kinds,
    input.routing.scheduleIds,
    input.routing.tags,
    input.enabled,
    actor.label,
  ];
}

export async function createAlertChannel(input: ChannelInput, actor: Actor, opts: { db?: Queryable } = {}): Promise<AlertChannelView> {
  const settings = parseChannelSettings(input.type, input.settings);
  return inTransaction({ tx: opts.db }, async (tx) => {
    const team = await resolveTeamForCreate(tx, actor, input.team, "admin");
    await checkScheduleIds(tx, input.routing, team.id);
    const { rows: ids } = await tx.query<{ id: string }>(`SELECT gen_random_uuid() AS id`);
    const id = ids[0]!.id;
    const refs = await storeSecrets(tx, { id, teamId: team.id }, input.type, input, {}, actor);
    const { rows } = await uniqueName(
      tx.query<AlertChannelRow>(
        `INSERT INTO alert_channels (id, name, settings, secret_refs, kinds, schedule_ids, tags, enabled, created_by, updated_by, type, team_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11) RETURNING ${COLUMNS}`,
        [id, ...channelValues(input, settings, refs, actor), input.type, team.id],
      ),
      input.name,
    );
    const view = toChannelView(rows[0]!);
    await recordAudit(tx, { actor, action: "alert_channel.create", targetType: "alert_channel", targetId: id, after: auditView(view) });
    return view;
  });
}

export async function updateAlertChannel(
  id: string,
  input: ChannelInput,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<AlertChannelView> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const before = await getAlertChannelRowOrThrow(tx, id, true);
    if (input.type !== before.type)
      throw new ValidationError("A channel's type cannot change: create another channel.", { type: `this channel is ${before.type}` });
    if (input.team !== undefined && (await findTeam(tx, input.team))?.id !== before.team_id) {
      const message = `This channel belongs to team ${before.team}; a channel does not move between teams.`;
      throw new ValidationError(message, { team: message }, "channel_team_fixed");
    }
    const settings = parseChannelSettings(input.type, input.settings);
    await checkScheduleIds(tx, input.routing, before.team_id);
    const refs = await storeSecrets(tx, { id, teamId: before.team_id }, input.type, input, before.secret_refs, actor);
    const { rows } = await uniqueName(
      tx.query<AlertChannelRow>(
        `UPDATE alert_channels SET name = $2, settings = $3, secret_refs = $4, kinds = $5, schedule_ids = $6, tags = $7, enabled = $8,
                updated_at = clock_timestamp(), updated_by = $9
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, ...channelValues(input, settings, refs, actor)],
      ),
      input.name,
    );
    const view = toChannelView(rows[0]!);
    const replaced = Object.keys(input.secrets).filter((f) => input.secrets[f as ChannelSecretField] !== undefined);
    await recordAudit(tx, {
      actor,
      action: "alert_channel.update",
      targetType: "alert_channel",
      targetId: id,
      before: auditView(toChannelView(before)),
      after: { ...auditView(view), ...(replaced.length > 0 ? { secretsReplaced: replaced } : {}) },
    });
    return view;
  });
}

export async function deleteAlertChannel(id: string, actor: Actor, opts: { db?: Queryable } = {}): Promise<{ id: string; deleted: true }> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const before = await getAlertChannelRowOrThrow(tx, id, true);
    await tx.query(`DELETE FROM alert_channels WHERE id = $1`, [id]);
    for (const name of Object.values(before.secret_refs)) if (name) await deleteSecret(name, actor, { db: tx });
    await recordAudit(tx, {
      actor,
      action: "alert_channel.delete",
      targetType: "alert_channel",
      targetId: id,
      before: auditView(toChannelView(before)),
    });
    return { id, deleted: true as const };
  });
}

/** What the audit trail keeps of a channel: the view (secrets only as set / not set). */
const auditView = (v: AlertChannelView) => ({
  name: v.name,
  team: v.team,
  type: v.type,
  settings: v.settings,
  secrets: v.secrets,
  routing: v.routing,
  enabled: v.enabled,
});
