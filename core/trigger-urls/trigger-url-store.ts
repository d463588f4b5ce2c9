// Trigger URLs of a schedule as operators manage them: create (the secret answered once), list (never a secret),
// rotate (a new secret answered once; the old one stops working at once) and revoke. Every change is audited,
// without the secret. Receiving a delivery is receive-trigger-delivery.ts.
import crypto from "node:crypto";
import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "../auth/roles";
import { assertMayRunSchedules } from "../auth/program-permission";
import { inTransaction, type Queryable } from "../db/pool";
import { ConflictError, NotFoundError } from "../errors";
import { getScheduleOrThrow } from "../schedules/schedule-record";
import { newTriggerUrlSecret, sealTriggerUrlSecret, type StoredTriggerSecret } from "./trigger-url-secret";

export const MAX_LIVE_TRIGGER_URLS = 20;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;

export const triggerUrlInputSchema = z.strictObject({
  label: z
    .string({ error: "Give the trigger URL a label (who or what calls it)" })
    .trim()
    .min(1, { error: "Give the trigger URL a label (who or what calls it)" })
    .max(100, { error: "label must be at most 100 characters" })
    .regex(/^[^\p{Cc}]*$/u, { error: "label must not contain control characters" }),
  authMode: z
    .enum(["hmac", "bearer"], { error: 'authMode is "hmac" (signed deliveries) or "bearer" (the secret as a bearer token)' })
    .default("hmac"),
  payloadMode: z
    .enum(["schedule", "body"], { error: 'payloadMode is "schedule" (the schedule\'s payload) or "body" (the delivery\'s JSON body)' })
    .default("schedule"),
  rateLimitPerMinute: z
    .number({ error: "rateLimitPerMinute must be a whole number" })
    .int({ error: "rateLimitPerMinute must be a whole number" })
    .min(1, { error: "rateLimitPerMinute must be at least 1" })
    .max(6000, { error: "rateLimitPerMinute must be at most 6000" })
    .default(DEFAULT_RATE_LIMIT_PER_MINUTE),
});
export type TriggerUrlInput = z.output<typeof triggerUrlInputSchema>;

export const triggerUrlListingSchema = z.object({
  id: z.uuid(),
  scheduleId: z.uuid(),
  label: z.string(),
  authMode: z.enum(["hmac", "bearer"]),
  payloadMode: z.enum(["schedule", "body"]),
  rateLimitPerMinute: z.number().int(),
  /** Where a sender POSTs, relative to the console's origin. */
  path: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  secretRotatedAt: z.string(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type TriggerUrlListing = z.infer<typeof triggerUrlListingSchema>;

/** A created or rotated URL: the only answers that carry the secret. */
export const triggerUrlWithSecretSchema = z.object({ triggerUrl: triggerUrlListingSchema, secret: z.string() });
export type TriggerUrlWithSecret = z.infer<typeof triggerUrlWithSecretSchema>;

const COLUMNS = `id, schedule_id, label, auth_mode, payload_mode, rate_limit_per_minute, created_at, created_by, secret_rotated_at,
                 revoked_at, revoked_by, last_used_at`;

interface Row {
  id: string;
  schedule_id: string;
  label: string;
  auth_mode: "hmac" | "bearer";
  payload_mode: "schedule" | "body";
  rate_limit_per_minute: number;
  created_at: Date;
  created_by: string;
  secret_rotated_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
  last_used_at: Date | null;
}

export const triggerUrlPath = (id: string) => `/api/hooks/${id}`;

function toListing(r: Row): TriggerUrlListing {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    label: r.label,
    authMode: r.auth_mode,
    payloadMode: r.payload_mode,
    rateLimitPerMinute: r.rate_limit_per_minute,
    path: triggerUrlPath(r.id),
    createdAt: r.created_at.toISOString(),
    createdBy: r.created_by,
    secretRotatedAt: r.secret_rotated_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
    revokedBy: r.revoked_by,
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
  };
}

/** The schedule's trigger URLs, live ones first, newest first; revoked ones stay listed (greyed) for the record. */
export async function listTriggerUrls(db: Queryable, scheduleId: string): Promise<TriggerUrlListing[]> {
  await getScheduleOrThrow(db, scheduleId);
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM trigger_urls WHERE schedule_id = $1 ORDER BY revoked_at IS NOT NULL, created_at DESC, id`,
    [scheduleId],
  );
  return rows.map(toListing);
}

const sealedValues = (s: StoredTriggerSecret) => [
  s.hash,
  s.encrypted?.ciphertext ?? null,
  s.encrypted?.iv ?? null,
  s.encrypted?.authTag ?? null,
  s.encrypted?.keyId ?? null,
];

/** A schedule's settings for the audit row and the answer: everything but the secret. */
const auditView = (t: TriggerUrlListing) => ({
  label: t.label,
  authMode: t.authMode,
  payloadMode: t.payloadMode,
  rateLimitPerMinute: t.rateLimitPerMinute,
  path: t.path,
});

export async function createTriggerUrl(
  scheduleId: string,
  v: TriggerUrlInput,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<TriggerUrlWithSecret> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    const schedule = await getScheduleOrThrow(tx, scheduleId);
    // Whoever hands out a way to fire the schedule must be allowed to fire it.
    await assertMayRunSchedules(tx, actor, [schedule.id]);
    const { rows: live } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM trigger_urls WHERE schedule_id = $1 AND revoked_at IS NULL`,
      [schedule.id],
    );
    if (live[0]!.n >= MAX_LIVE_TRIGGER_URLS) {
      throw new ConflictError(
        `Schedule ${schedule.name} already has ${MAX_LIVE_TRIGGER_URLS} live trigger URLs; revoke one first.`,
        "too_many_trigger_urls",
      );
    }
    const id = crypto.randomUUID();
    const secret = newTriggerUrlSecret();
    const { rows } = await tx.query<Row>(
      `INSERT INTO trigger_urls (id, schedule_id, label, auth_mode, payload_mode, rate_limit_per_minute, created_by,
                                 secret_hash, secret_ciphertext, secret_iv, secret_auth_tag, secret_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${COLUMNS}`,
      [
        id,
        schedule.id,
        v.label,
        v.authMode,
        v.payloadMode,
        v.rateLimitPerMinute,
        actor.label,
        ...sealedValues(sealTriggerUrlSecret(id, secret, v.authMode)),
      ],
    );
    const triggerUrl = toListing(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "trigger_url.create",
      targetType: "schedule",
      targetId: schedule.id,
      after: { triggerUrlId: id, ...auditView(triggerUrl) },
    });
    return { triggerUrl, secret };
  });
}

async function getLiveTriggerUrlOrThrow(tx: Queryable, scheduleId: string, id: string): Promise<Row> {
  const { rows } = await tx.query<Row>(`SELECT ${COLUMNS} FROM trigger_urls WHERE id = $1 AND schedule_id = $2 FOR UPDATE`, [
    id,
    scheduleId,
  ]);
  const r = rows[0];
  if (!r) throw new NotFoundError("Trigger URL", id);
  if (r.revoked_at)
    throw new ConflictError(
      `Trigger URL "${r.label}" was revoked by ${r.revoked_by ?? "someone"}; create a new one.`,
      "trigger_url_revoked",
    );
  return r;
}

/** A new secret for the URL (same address): the old secret is refused from this commit on. */
export async function rotateTriggerUrlSecret(
  scheduleId: string,
  id: string,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<TriggerUrlWithSecret> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    await getScheduleOrThrow(tx, scheduleId);
    await assertMayRunSchedules(tx, actor, [scheduleId]);
    const before = await getLiveTriggerUrlOrThrow(tx, scheduleId, id);
    const secret = newTriggerUrlSecret();
    const { rows } = await tx.query<Row>(
      `UPDATE trigger_urls SET secret_hash = $2, secret_ciphertext = $3, secret_iv = $4, secret_auth_tag = $5, secret_key_id = $6,
                               secret_rotated_at = clock_timestamp()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...sealedValues(sealTriggerUrlSecret(id, secret, before.auth_mode))],
    );
    const triggerUrl = toListing(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "trigger_url.rotate",
      targetType: "schedule",
      targetId: scheduleId,
      before: { triggerUrlId: id, secretRotatedAt: before.secret_rotated_at.toISOString() },
      after: { triggerUrlId: id, label: triggerUrl.label, secretRotatedAt: triggerUrl.secretRotatedAt },
    });
    return { triggerUrl, secret };
  });
}

/** Revoked for good: its address answers 404 from this commit on, like one that never existed. */
export async function revokeTriggerUrl(
  scheduleId: string,
  id: string,
  actor: Actor,
  opts: { db?: Queryable } = {},
): Promise<{ triggerUrl: TriggerUrlListing }> {
  return inTransaction({ tx: opts.db }, async (tx) => {
    await getScheduleOrThrow(tx, scheduleId);
    const before = await getLiveTriggerUrlOrThrow(tx, scheduleId, id);
    const { rows } = await tx.query<Row>(
      `UPDATE trigger_urls SET revoked_at = clock_timestamp(), revoked_by = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, actor.label],
    );
    const triggerUrl = toListing(rows[0]!);
    await recordAudit(tx, {
      actor,
      action: "trigger_url.revoke",
      targetType: "schedule",
      targetId: scheduleId,
      before: { triggerUrlId: id, ...auditView(toListing(before)) },
      after: { triggerUrlId: id, revokedAt: triggerUrl.revokedAt },
    });
    return { triggerUrl };
  });
}
