import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecretValue, encryptSecretValue } from "./secret-crypto";
import { findSecretRefs, hasSecretRefs, replaceSecretRefs } from "./secret-refs";
import { createRedactor } from "./redact-secrets";
import { validatePayloadWithSecretRefs } from "../handlers/json-schema-validate";
import { MASKED, maskCredentials, plainCredentialPaths, restoreMaskedValues } from "./mask-credentials";

const key = crypto.randomBytes(32);

describe("secret encryption", () => {
  it("round-trips, uses a fresh IV per value, and refuses another name, key or altered bytes", () => {
    const a = encryptSecretValue(key, "A_TOKEN", "value-1");
    const b = encryptSecretValue(key, "A_TOKEN", "value-1");
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(decryptSecretValue(key, "A_TOKEN", a)).toBe("value-1");
    expect(() => decryptSecretValue(key, "B_TOKEN", a)).toThrow(/B_TOKEN could not be decrypted/);
    expect(() => decryptSecretValue(crypto.randomBytes(32), "A_TOKEN", a)).toThrow(/another VIGIL_SECRET_KEY.*VIGIL_SECRET_KEY_PREVIOUS/);
    // During a rotation: the new key first, the old one among the previous keys.
    expect(decryptSecretValue([crypto.randomBytes(32), key], "A_TOKEN", a)).toBe("value-1");
    const altered = { ...a, ciphertext: Buffer.from(a.ciphertext.map((x, i) => (i === 0 ? x ^ 1 : x))) };
    expect(() => decryptSecretValue(key, "A_TOKEN", altered)).toThrow(/fails authentication/);
  });
});

describe("secret references", () => {
  const payload = {
    url: "https://x",
    headers: { Authorization: { $secret: "BANK" } },
    env: { A: { $secret: "A" } },
    list: [{ $secret: "BANK" }],
    notRef: { $secret: "X", extra: 1 },
  };
  it("are found anywhere with their paths, and replaced without touching the original", () => {
    expect(findSecretRefs(payload)).toEqual([
      { path: "headers.Authorization", name: "BANK" },
      { path: "env.A", name: "A" },
      { path: "list.0", name: "BANK" },
    ]);
    const filled = replaceSecretRefs(payload, (n) => `<${n}>`) as typeof payload;
    expect(filled.headers.Authorization).toBe("<BANK>");
    expect(filled.list).toEqual(["<BANK>"]);
    expect(payload.headers.Authorization).toEqual({ $secret: "BANK" });
  });

  it("are detected wherever findSecretRefs finds them, and only there", () => {
    for (const v of [payload, { list: [1, [{ $secret: "A" }]] }, { $secret: "A" }]) {
      expect(hasSecretRefs(v)).toBe(true);
      expect(findSecretRefs(v).length).toBeGreaterThan(0);
    }
    for (const v of [{}, null, "x", [], { notRef: { $secret: "X", extra: 1 } }, { a: { $secret: 1 } }, { a: [{ b: "c" }] }]) {
      expect(hasSecretRefs(v)).toBe(false);
      expect(findSecretRefs(v)).toEqual([]);
    }
  });
});

describe("redaction", () => {
  it("takes every value out of strings, nested fields and keys, longest value first", () => {
    const redact = createRedactor([
      { name: "SHORT", value: "abcd" },
      { name: "LONG", value: "abcd-efgh" },
    ]);
    expect(redact({ m: "x abcd-efgh y abcd", n: [{ abcd: "abcd" }], k: 3 })).toEqual({
      m: "x [secret LONG] y [secret SHORT]",
      n: [{ "[secret SHORT]": "[secret SHORT]" }],
      k: 3,
    });
  });
});

describe("credential masking", () => {
  const payload = {
    url: "https://x",
    headers: { Authorization: "Bearer t", Accept: "json", "X-Api-Key": "k" },
    password: "p",
    nested: { clientSecret: ["s"] },
    ref: { token: { $secret: "T" } },
    count: 3,
  };
  it("masks credential-looking keys' strings, keeps references and everything else", () => {
    expect(maskCredentials(payload)).toEqual({
      url: "https://x",
      headers: { Authorization: MASKED, Accept: "json", "X-Api-Key": MASKED },
      password: MASKED,
      nested: { clientSecret: [MASKED] },
      ref: { token: { $secret: "T" } },
      count: 3,
    });
    expect(plainCredentialPaths(payload)).toEqual(["headers.Authorization", "headers.X-Api-Key", "password", "nested.clientSecret.0"]);
  });
  it("restores masked values from the stored payload on save", () => {
    const edited = { ...maskCredentials(payload), url: "https://y" };
    expect(restoreMaskedValues(edited, payload)).toEqual({ ...payload, url: "https://y" });
  });
});

describe("payload checks with references (JSON Schema: user handlers and the browser's editor)", () => {
  const schema = {
    type: "object",
    properties: { token: { type: "string", minLength: 40 }, n: { type: "number" } },
    required: ["token"],
    additionalProperties: false,
  };
  it("accepts a reference where a string goes, whatever the string's format, and refuses one where a number goes", () => {
    expect(validatePayloadWithSecretRefs(schema, { token: { $secret: "T" } })).toEqual([]);
    const problems = validatePayloadWithSecretRefs(schema, { token: { $secret: "T" }, n: { $secret: "N" } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: "n", message: expect.stringMatching(/secret reference stands for a string/) });
  });
});
