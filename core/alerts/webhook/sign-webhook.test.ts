import { describe, expect, it } from "vitest";
import crypto from "node:crypto";
import { signWebhook, verifyWebhookSignature } from "./sign-webhook";

describe("webhook signatures", () => {
  const body = JSON.stringify({ type: "alert.opened", alert: { id: "a1" } });

  it("is the HMAC-SHA256 of timestamp.body, hex, prefixed sha256=", () => {
    const expected = crypto.createHmac("sha256", "s3cret").update(`1700000000.${body}`).digest("hex");
    expect(signWebhook("s3cret", 1700000000, body)).toBe(`sha256=${expected}`);
  });

  it("verifies the genuine signature and refuses a changed body, timestamp, secret or a stale timestamp", () => {
    const sig = signWebhook("s3cret", 1700000000, body);
    const ok = { signature: sig, timestamp: "1700000000" };
    expect(verifyWebhookSignature("s3cret", ok, body, { nowSeconds: 1700000010 })).toBe(true);
    expect(verifyWebhookSignature("s3cret", ok, body.replace("a1", "a2"), { nowSeconds: 1700000010 })).toBe(false);
    expect(verifyWebhookSignature("s3cret", { ...ok, timestamp: "1700000001" }, body, { nowSeconds: 1700000010 })).toBe(false);
    expect(verifyWebhookSignature("other", ok, body, { nowSeconds: 1700000010 })).toBe(false);
    expect(verifyWebhookSignature("s3cret", ok, body, { nowSeconds: 1700000000 + 301 })).toBe(false);
    expect(verifyWebhookSignature("s3cret", { signature: null, timestamp: "1700000000" }, body, { nowSeconds: 1700000000 })).toBe(false);
  });
});
