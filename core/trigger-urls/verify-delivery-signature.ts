// How a signed delivery is checked: `Vigil-Signature: v1=<hex>` is HMAC-SHA256, keyed with the URL's secret, over
// `<Vigil-Timestamp>.<raw body bytes>`; the timestamp (unix seconds) must lie within REPLAY_WINDOW_SECONDS of the
// database's clock, so a captured delivery cannot be sent again later. Several `v1=` values (comma separated) are
// accepted, so a sender can sign with an old and a new secret across a rotation of its own.
import crypto from "node:crypto";
import { DomainError } from "../errors";

export const REPLAY_WINDOW_SECONDS = 300;
export const TIMESTAMP_HEADER = "vigil-timestamp";
export const SIGNATURE_HEADER = "vigil-signature";

/** A refused delivery: the status and code a sender can act on. */
export class DeliveryRefusedError extends DomainError {}

export function signDelivery(secret: string, timestamp: string, body: Buffer | string): string {
  return crypto.createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
}

/** Throws DeliveryRefusedError (401) unless the headers carry a valid, fresh signature of body. */
export function verifyDeliverySignature(opts: {
  secret: string;
  timestamp: string | null;
  signature: string | null;
  body: Buffer;
  nowEpochSeconds: number;
}): void {
  if (!opts.timestamp || !opts.signature) {
    throw new DeliveryRefusedError(
      401,
      "signature_missing",
      'This trigger URL needs a signed delivery: send Vigil-Timestamp (unix seconds) and Vigil-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">.',
    );
  }
  if (!/^\d{1,12}$/.test(opts.timestamp.trim())) {
    throw new DeliveryRefusedError(401, "timestamp_invalid", "Vigil-Timestamp must be the current time in whole unix seconds.");
  }
  const ts = opts.timestamp.trim();
  const skew = Number(ts) - opts.nowEpochSeconds;
  if (Math.abs(skew) > REPLAY_WINDOW_SECONDS) {
    throw new DeliveryRefusedError(
      401,
      "timestamp_outside_window",
      `Vigil-Timestamp is ${Math.round(Math.abs(skew))} s ${skew < 0 ? "in the past" : "in the future"}; it must be within ${REPLAY_WINDOW_SECONDS} s of the server's clock. Sign each delivery when you send it (and check the sender's clock).`,
    );
  }
  const expected = Buffer.from(signDelivery(opts.secret, ts, opts.body), "hex");
  const offered = opts.signature
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.startsWith("v1="))
    .map((p) => p.slice(3));
  if (offered.length === 0) {
    throw new DeliveryRefusedError(401, "signature_invalid", "Vigil-Signature must be v1=<64 hex digits>.");
  }
  const ok = offered.some((hex) => {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
    return crypto.timingSafeEqual(Buffer.from(hex, "hex"), expected);
  });
  if (!ok) {
    throw new DeliveryRefusedError(
      401,
      "signature_mismatch",
      'Vigil-Signature does not match: sign "<Vigil-Timestamp>.<the exact body bytes sent>" with HMAC-SHA256 and this URL\'s current secret, hex encoded.',
    );
  }
}
