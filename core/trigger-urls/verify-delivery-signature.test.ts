import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { REPLAY_WINDOW_SECONDS, signDelivery, verifyDeliverySignature } from "./verify-delivery-signature";

const secret = "vgh_test-secret";
const body = Buffer.from('{"a":"é"}');
const now = 1_800_000_000;

function check(timestamp: string | null, signature: string | null, b = body) {
  try {
    verifyDeliverySignature({ secret, timestamp, signature, body: b, nowEpochSeconds: now });
    return "ok";
  } catch (err) {
    return (err as { code: string }).code;
  }
}

describe("verifyDeliverySignature", () => {
  it("accepts the HMAC-SHA256 of <timestamp>.<body bytes>, as openssl would compute it", () => {
    const ts = String(now);
    const expected = crypto
      .createHmac("sha256", secret)
      .update(`${ts}.${body.toString("utf8")}`)
      .digest("hex");
    expect(signDelivery(secret, ts, body)).toBe(expected);
    expect(check(ts, `v1=${expected}`)).toBe("ok");
    expect(check(ts, `v1=${expected.toUpperCase()}`)).toBe("ok");
    // One of several signatures (a sender mid-rotation) is enough.
    expect(check(ts, `v1=${"0".repeat(64)}, v1=${expected}`)).toBe("ok");
  });

  it("refuses a signature of another body, another secret or another timestamp", () => {
    const ts = String(now);
    expect(check(ts, `v1=${signDelivery(secret, ts, "{}")}`)).toBe("signature_mismatch");
    expect(check(ts, `v1=${signDelivery("vgh_other", ts, body)}`)).toBe("signature_mismatch");
    expect(check(ts, `v1=${signDelivery(secret, String(now - 1), body)}`)).toBe("signature_mismatch");
    expect(check(ts, `v1=${signDelivery(secret, ts, body).slice(0, 63)}`)).toBe("signature_mismatch");
  });

  it("says what is missing or malformed", () => {
    expect(check(null, "v1=00")).toBe("signature_missing");
    expect(check(String(now), null)).toBe("signature_missing");
    expect(check("yesterday", "v1=00")).toBe("timestamp_invalid");
    expect(check(String(now), "sha256=abc")).toBe("signature_invalid");
  });

  it("refuses a timestamp outside the replay window either way, accepts one at its edge", () => {
    const at = (ts: number) => check(String(ts), `v1=${signDelivery(secret, String(ts), body)}`);
    expect(at(now - REPLAY_WINDOW_SECONDS)).toBe("ok");
    expect(at(now + REPLAY_WINDOW_SECONDS)).toBe("ok");
    expect(at(now - REPLAY_WINDOW_SECONDS - 1)).toBe("timestamp_outside_window");
    expect(at(now + REPLAY_WINDOW_SECONDS + 1)).toBe("timestamp_outside_window");
  });
});
