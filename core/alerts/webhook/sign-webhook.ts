// Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the shared secret, sent as
// `X-Vigil-Signature: sha256=<hex>` next to `X-Vigil-Timestamp: <unix seconds>`. Covering the
// timestamp lets a receiver refuse replays of an old, validly signed body.
import crypto from "node:crypto";

export const SIGNATURE_HEADER = "x-vigil-signature";
export const TIMESTAMP_HEADER = "x-vigil-timestamp";

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** What a receiver does: recompute, compare in constant time, and bound the age of the timestamp. */
export function verifyWebhookSignature(
  secret: string,
  headers: { signature: string | null | undefined; timestamp: string | null | undefined },
  body: string,
  opts: { nowSeconds: number; toleranceSeconds?: number },
): boolean {
  if (!headers.signature || !headers.timestamp || !/^\d+$/.test(headers.timestamp)) return false;
  const ts = Number(headers.timestamp);
  if (Math.abs(opts.nowSeconds - ts) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, ts, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}
