import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { fieldErrorsFromZod } from "../errors";
import { httpRequestSpec, shellCommandSpec } from "./builtin-handler-specs";

function fieldsOf(schema: z.ZodType, payload: unknown): Record<string, string> {
  const parsed = schema.safeParse(payload);
  expect(parsed.success, JSON.stringify(payload)).toBe(false);
  return fieldErrorsFromZod(parsed.error!.issues);
}

describe("http.request payload", () => {
  const p = httpRequestSpec.payload;
  it("refuses the headers Vigil sets itself and a clear-text signing key", () => {
    expect(fieldsOf(p, { url: "https://x", headers: { "Idempotency-Key": "mine" } })).toHaveProperty(["headers.Idempotency-Key"]);
    expect(fieldsOf(p, { url: "https://x", headers: { "x-vigil-signature": "sha256=0" } })["headers.x-vigil-signature"]).toMatch(
      /Vigil sets them itself/,
    );
    expect(p.parse({ url: "https://x", signing: { keyEnv: "PAYOUTS_SIGNING_KEY" } })).toMatchObject({
      signing: { keyEnv: "PAYOUTS_SIGNING_KEY" },
    });
    expect(fieldsOf(p, { url: "https://x", headers: ["a"] }).headers).toMatch(/object of string values/);
    expect(fieldsOf(p, { url: "https://x", signing: { key: "s3cret" } })).toHaveProperty("signing");
    expect(fieldsOf(p, { url: "https://x", signing: { keyEnv: "VIGIL_ALERT_WEBHOOK_SECRET" } })["signing.keyEnv"]).toMatch(/Vigil's own/);
    expect(fieldsOf(p, { url: "https://x", signing: { keyEnv: "not a name" } })["signing.keyEnv"]).toMatch(/environment variable name/);
  });
});

describe("shell.command payload", () => {
  const p = shellCommandSpec.payload;
  it("takes exactly one of command (argv) or script and fills defaults", () => {
    expect(p.parse({ command: ["/bin/true"] })).toEqual({ command: ["/bin/true"], env: {}, passEnv: [], maxOutputBytes: 262144 });
    expect(p.parse({ script: "echo hi" })).toMatchObject({ script: "echo hi" });
    expect(fieldsOf(p, {}).command).toMatch(/exactly one of command/);
    expect(fieldsOf(p, { command: ["x"], script: "y" })).toHaveProperty("script");
    expect(fieldsOf(p, { command: [] }).command).toMatch(/first element/);
    expect(fieldsOf(p, { command: "ls -l" }).command).toMatch(/array of strings/);
    expect(fieldsOf(p, { command: ["ls"], extra: 1 })).toHaveProperty("_");
  });

  it("checks cwd, env, passEnv and the output cap field by field", () => {
    expect(fieldsOf(p, { script: "x", cwd: "relative/dir" }).cwd).toMatch(/absolute/);
    expect(fieldsOf(p, { script: "x", env: { VIGIL_RUN_ID: "x" } })["env.VIGIL_RUN_ID"]).toMatch(/may not set DATABASE_URL or VIGIL_/);
    expect(fieldsOf(p, { script: "x", env: "A=1" }).env).toMatch(/object of string values/);
    expect(fieldsOf(p, { script: "x", env: { "BAD-NAME": "x" } })["env.BAD-NAME"]).toMatch(/letters, digits and _/);
    expect(fieldsOf(p, { script: "x", env: { A: "nul\0" } })["env.A"]).toMatch(/NUL/);
    expect(fieldsOf(p, { script: "x", passEnv: ["DATABASE_URL"] })["passEnv.0"]).toMatch(/Vigil's own/);
    expect(fieldsOf(p, { script: "x", passEnv: ["vigil_admin_password"] })["passEnv.0"]).toMatch(/Vigil's own/);
    expect(fieldsOf(p, { script: "x", maxOutputBytes: 10 })).toHaveProperty("maxOutputBytes");
  });
});
