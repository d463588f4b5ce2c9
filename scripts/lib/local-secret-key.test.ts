import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "../../core/env";
import { LOCAL_SECRET_KEY_FILE, ensureLocalSecretKey } from "./local-secret-key";

describe("the embedded database's secret key", () => {
  it("is created once in the data folder (owner-only) and reused on the next start", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-key-"));
    try {
      const said: string[] = [];
      const first = ensureLocalSecretKey(dir, (l) => said.push(l));
      expect(said).toHaveLength(1);
      expect(Buffer.from(first, "base64")).toHaveLength(32);
      expect(fs.statSync(path.join(dir, LOCAL_SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(ensureLocalSecretKey(dir, (l) => said.push(l))).toBe(first);
      expect(said).toHaveLength(1);
      // What npm start hands the console and the workers parses as a key.
      expect(envSchema.parse({ VIGIL_SECRET_KEY: first }).VIGIL_SECRET_KEY).toHaveLength(32);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("VIGIL_SECRET_KEY must be 32 bytes of base64; unset is allowed until a secret is used", () => {
    const bad = envSchema.safeParse({ VIGIL_SECRET_KEY: Buffer.alloc(16).toString("base64") });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/must be 32 bytes in base64.*got 16 bytes/);
    expect(envSchema.parse({}).VIGIL_SECRET_KEY).toBeUndefined();
    expect(envSchema.parse({ VIGIL_SECRET_KEY: "" }).VIGIL_SECRET_KEY).toBeUndefined();
  });
});
