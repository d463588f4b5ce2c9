// A delivery to a trigger URL (POST /api/hooks/:id), checked in this order: the URL is live (else 404, the same
// for one never created and one revoked), within its rate (429 with Retry-After), authenticated by its own secret
// (a fresh HMAC signature or the bearer secret: 401 with what is wrong), not a repeat (Idempotency-Key or
// Vigil-Delivery-Id; a signed delivery without either is keyed by its signature, so a replay inside the window
// answers the first run too), and its body a valid payload when the URL passes the body on (422 payload_invalid).
// The run is created as a manual trigger (core/schedules/trigger-now.ts) by the actor "trigger URL <label>",
// whose audit row carries the sender's address. A refused delivery creates nothing and is audited as refused.
import type { PgBoss } from "pg-boss";
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { getPool, inTransaction, type Queryable } from "../db/pool";
import { BadRequestError, DomainError, TooManyRequestsError, ValidationError } from "../errors";
import { describeInputProblem, findInputProblem } from "../http/input-shape";
import { isUuid } from "../schedules/schedule-record";
import { triggerNow } from "../schedules/trigger-now";
import { bearerMatches, openTriggerUrlSecret } from "./trigger-url-secret";
import { DeliveryRefusedError, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyDeliverySignature } from "./verify-delivery-signature";

export const MAX_DELIVERY_KEY_LENGTH = 200;
/** How long a delivery id is remembered: a repeat after that creates a new run. */
export const DELIVERY_KEY_DAYS = 7;

export interface DeliveryRequest {
  /** The id in the path, as sent. */
  triggerUrlId: string;
  /** The raw body (already within the route's size limit). */
  body: Buffer;
  header: (name: string) => string | null;
  client: { ip: string | null; userAgent: string | null };
  boss: PgBoss | null;
}

export interface DeliveryResult {
  runId: string;
  scheduleId: string;
  /** True when the delivery id was seen before: nothing new was created. */
  replayed: boolean;
}

interface LiveUrl {
  id: string;
  schedule_id: string;
  label: string;
  auth_mode: "hmac" | "bearer";
  payload_mode: "schedule" | "body";
  rate_limit_per_minute: number;
  rate_count: number;
  secret_hash: string;
  secret_ciphertext: Buffer | null;
  secret_iv: Buffer | null;
  secret_auth_tag: Buffer | null;
  secret_key_id: string | null;
  now_epoch: string;
  retry_after: string;
}

const NOT_FOUND_MESSAGE = "No trigger URL lives at this address: it was never created or has been revoked.";

/**
 * Counts the delivery against the URL's window of one minute and reads the URL (and the database's clock for the
 * replay window) in one statement. Null when there is no live URL of a live schedule at this id.
 */
async function countDelivery(db: Queryable, id: string): Promise<LiveUrl | null> {
  const { rows } = await db.query<LiveUrl>(
    `WITH w AS (SELECT now() AS now)
     UPDATE trigger_urls t
        SET rate_window_start = CASE WHEN t.rate_window_start IS NULL OR t.rate_window_start <= w.now - interval '1 minute'
                                     THEN w.now ELSE t.rate_window_start END,
            rate_count = CASE WHEN t.rate_window_start IS NULL OR t.rate_window_start <= w.now - interval '1 minute'
                              THEN 1 ELSE least(t.rate_count + 1, 1000000000) END
       FROM schedules s, w
      WHERE t.id = $1 AND t.revoked_at IS NULL AND s.id = t.schedule_id AND s.deleted_at IS NULL
     RETURNING t.id, t.schedule_id, t.label, t.auth_mode, t.payload_mode, t.rate_limit_per_minute, t.rate_count,
               t.secret_hash, t.secret_ciphertext, t.secret_iv, t.secret_auth_tag, t.secret_key_id,
               extract(epoch FROM w.now)::text AS now_epoch,
               extract(epoch FROM t.rate_window_start + interval '1 minute' - w.now)::text AS retry_after`,
    [id],
  );
  return rows[0] ?? null;
}

function authenticateDelivery(url: LiveUrl, req: DeliveryRequest): void {
  if (url.auth_mode === "bearer") {
    const auth = req.header("authorization");
    const presented = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null;
    if (!presented) {
      throw new DeliveryRefusedError(
        401,
        "bearer_missing",
        "This trigger URL needs its secret in the header Authorization: Bearer <secret>.",
      );
    }
    if (!bearerMatches(presented, url.secret_hash)) {
      throw new DeliveryRefusedError(
        401,
        "bearer_mismatch",
        "The bearer secret is not this trigger URL's current secret (was it rotated?).",
      );
    }
    return;
  }
  const secret = openTriggerUrlSecret(url.id, {
    ciphertext: url.secret_ciphertext!,
    iv: url.secret_iv!,
    authTag: url.secret_auth_tag!,
    keyId: url.secret_key_id!,
  });
  verifyDeliverySignature({
    secret,
    timestamp: req.header(TIMESTAMP_HEADER),
    signature: req.header(SIGNATURE_HEADER),
    body: req.body,
    nowEpochSeconds: Number(url.now_epoch),
  });
}

/** The sender's delivery id, or for a signed delivery without one its signature; null for neither. */
function deliveryKey(url: LiveUrl, req: DeliveryRequest): string | null {
  const given = req.header("idempotency-key") ?? req.header("vigil-delivery-id");
  if (given !== null) {
    const k = given.trim();
    if (k.length === 0 || k.length > MAX_DELIVERY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(k)) {
      throw new DeliveryRefusedError(
        400,
        "delivery_id_invalid",
        `Idempotency-Key / Vigil-Delivery-Id must be 1..${MAX_DELIVERY_KEY_LENGTH} visible ASCII characters.`,
      );
    }
    return `id:${k}`;
  }
  if (url.auth_mode === "hmac") return `sig:${req.header(SIGNATURE_HEADER)!.trim()}`;
  return null;
}

/** The delivery's JSON object body as the run's payload (payload mode "body"). */
function payloadFromBody(req: DeliveryRequest): Record<string, unknown> {
  const type = (req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new DeliveryRefusedError(
      415,
      "unsupported_media_type",
      "This trigger URL passes the body on as the run's payload: send a JSON object with Content-Type: application/json.",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString("utf8"));
  } catch {
    throw new DeliveryRefusedError(422, "payload_invalid", "The body is not valid JSON; it must be a JSON object, the run's payload.");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new DeliveryRefusedError(422, "payload_invalid", "The body must be a JSON object: it becomes the run's payload.");
  }
  const problem = findInputProblem(parsed);
  if (problem) {
    const d = describeInputProblem(problem, "body");
    throw new BadRequestError(d.message, d.code, { [problem.path]: d.field });
  }
  return parsed as Record<string, unknown>;
}

function webhookActor(url: LiveUrl, client: DeliveryRequest["client"]): Actor {
  // Not allowed to run programs: an outside sender never starts a program on a worker host (program-permission.ts).
  return { type: "webhook", id: url.id, label: `trigger URL "${url.label}"`, role: "operator", mayRunPrograms: false, ...client };
}

async function createRun(
  url: LiveUrl,
  req: DeliveryRequest,
  key: string | null,
  payload: Record<string, unknown> | undefined,
): Promise<DeliveryResult> {
  const actor = webhookActor(url, req.client);
  return inTransaction({}, async (tx) => {
    // The URL's row and the delivery key first, the audit chain (in triggerNow) last: record-audit.ts's lock order,
    // so a revoke holding this row while it writes its audit row cannot deadlock with a delivery.
    const live = await tx.query(`UPDATE trigger_urls SET last_used_at = clock_timestamp() WHERE id = $1 AND revoked_at IS NULL`, [url.id]);
    if (live.rowCount !== 1) throw new DeliveryRefusedError(404, "not_found", NOT_FOUND_MESSAGE);
    if (key !== null) {
      await tx.query(
        `DELETE FROM trigger_url_deliveries WHERE trigger_url_id = $1 AND created_at < clock_timestamp() - make_interval(days => $2)`,
        [url.id, DELIVERY_KEY_DAYS],
      );
      const claimed = await tx.query(
        `INSERT INTO trigger_url_deliveries (trigger_url_id, delivery_key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [url.id, key],
      );
      if (claimed.rowCount !== 1) {
        const { rows } = await tx.query<{ run_id: string | null }>(
          `SELECT run_id FROM trigger_url_deliveries WHERE trigger_url_id = $1 AND delivery_key = $2`,
          [url.id, key],
        );
        if (rows[0]?.run_id) return { runId: rows[0].run_id, scheduleId: url.schedule_id, replayed: true };
        throw new DeliveryRefusedError(
          409,
          "delivery_in_progress",
          "A delivery with this id is being processed; send it again in a moment.",
        );
      }
    }
    // The sender's own id names the delivery in the run's trace (a signature-derived key is no use to a reader).
    const reason = key?.startsWith("id:") ? `webhook delivery ${key.slice(3)}` : "webhook delivery";
    let result;
    try {
      result = await triggerNow(url.schedule_id, { reason, payload }, actor, { db: tx, boss: req.boss });
    } catch (err) {
      if (err instanceof ValidationError) {
        throw new DeliveryRefusedError(
          422,
          "payload_invalid",
          `The body is not a valid payload for this schedule's handler: ${err.message}`,
          err.fields,
        );
      }
      throw err;
    }
    if (key !== null) {
      await tx.query(`UPDATE trigger_url_deliveries SET run_id = $3 WHERE trigger_url_id = $1 AND delivery_key = $2`, [
        url.id,
        key,
        result.runId,
      ]);
    }
    return { runId: result.runId!, scheduleId: url.schedule_id, replayed: false };
  });
}

/** Receives one delivery; a refusal is audited (with the sender's address) and thrown for the route to answer. */
export async function receiveTriggerDelivery(req: DeliveryRequest): Promise<DeliveryResult> {
  let url: LiveUrl | null = null;
  try {
    if (!isUuid(req.triggerUrlId)) throw new DeliveryRefusedError(404, "not_found", NOT_FOUND_MESSAGE);
    url = await countDelivery(getPool(), req.triggerUrlId);
    if (!url) throw new DeliveryRefusedError(404, "not_found", NOT_FOUND_MESSAGE);
    if (url.rate_count > url.rate_limit_per_minute) {
      throw new TooManyRequestsError(
        `This trigger URL takes at most ${url.rate_limit_per_minute} deliveries a minute; send again after Retry-After seconds.`,
        Math.max(1, Number(url.retry_after)),
      );
    }
    authenticateDelivery(url, req);
    const key = deliveryKey(url, req);
    const payload = url.payload_mode === "body" ? payloadFromBody(req) : undefined;
    return await createRun(url, req, key, payload);
  } catch (err) {
    if (err instanceof DomainError && err.status < 500) await auditRefusal(req, url, err);
    throw err;
  }
}

/** Answers for a refused delivery whatever it was refused for; a flood over the rate limit is recorded once a window. */
export async function auditRefusal(
  req: Pick<DeliveryRequest, "triggerUrlId" | "client">,
  url: Pick<LiveUrl, "id" | "schedule_id" | "label" | "rate_count" | "rate_limit_per_minute"> | null,
  err: DomainError,
): Promise<void> {
  if (err instanceof TooManyRequestsError && url && url.rate_count > url.rate_limit_per_minute + 1) return;
  await recordAudit(getPool(), {
    actor: {
      type: "webhook",
      id: url?.id ?? null,
      label: url ? `trigger URL "${url.label}"` : "trigger URL delivery",
      role: "viewer",
      ...req.client,
    },
    action: "trigger_url.delivery_refused",
    targetType: url ? "schedule" : "trigger_url",
    // A malformed id is not stored: it could hold anything (a NUL, which PostgreSQL refuses).
    targetId: url ? url.schedule_id : isUuid(req.triggerUrlId) ? req.triggerUrlId : null,
    after: {
      ...(url ? { triggerUrlId: url.id } : {}),
      status: err.status,
      code: err.code,
      ...(err instanceof TooManyRequestsError ? { note: "further refusals in this minute are not recorded one by one" } : {}),
    },
    reason: err.message.slice(0, 500),
  });
}
