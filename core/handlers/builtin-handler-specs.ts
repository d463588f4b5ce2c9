// The built-in job types as the console and the API see them: name, description, payload schema.
// Their run functions live in worker/handlers/ (one file each) and reuse these specs.
import { z } from "zod";
import { defineHandlerSpec } from "./define-handler.ts";
import { workerEnvVarName } from "./env-var-name.ts";
import { shellCommandSpec } from "./shell-command-spec.ts";
import { httpUrlSchema } from "../http/http-url.ts";

const accountId = (what: string) =>
  z
    .string({ error: `${what} must be an account id string, e.g. "cash"` })
    .min(1, { error: `${what} must not be empty` })
    .max(64, { error: `${what} must be at most 64 characters` })
    .regex(/^[A-Za-z0-9._:-]+$/, { error: `${what} may use letters, digits and . _ : - only` });

export const ledgerPostSpec = defineHandlerSpec({
  name: "ledger.post",
  description: "Moves an integer amount from one ledger account to another, exactly once per run (idempotent by the run's key).",
  payload: z
    .strictObject({
      from: accountId("from"),
      to: accountId("to"),
      amount: z
        .number({ error: "amount must be a whole number greater than 0" })
        .int({ error: "amount must be a whole number (minor units, e.g. cents)" })
        .min(1, { error: "amount must be at least 1" })
        .max(1_000_000_000_000, { error: "amount must be at most 1,000,000,000,000" }),
    })
    .refine((p) => p.from !== p.to, { error: "to must differ from from", path: ["to"] }),
});

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Headers http.request always sets itself; a payload may not set them (case-insensitive). */
export const HTTP_VIGIL_HEADERS = [
  "idempotency-key",
  "x-vigil-run-id",
  "x-vigil-attempt",
  "x-vigil-timestamp",
  "x-vigil-signature",
] as const;
export const HTTP_RECORDS_HEADER = "x-vigil-records";
export const HTTP_RECORDS_BODY_LIMIT = 1024 * 1024;

export const httpRequestSpec = defineHandlerSpec({
  name: "http.request",
  description:
    "Calls an http(s) URL; a non-2xx status fails the attempt. Always sends Idempotency-Key (the run's key), X-Vigil-Run-Id and " +
    "X-Vigil-Attempt. With signing.keyEnv it signs like the alert webhooks: X-Vigil-Timestamp (database clock, unix seconds) and " +
    'X-Vigil-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">, keyed by that worker environment variable. Records: the ' +
    "X-Vigil-Records response header, else a top-level numeric `records` in a JSON body (first 1 MiB), else 1.",
  payload: z.strictObject({
    method: z.enum(HTTP_METHODS, { error: `method must be one of ${HTTP_METHODS.join(", ")}` }).default("GET"),
    url: httpUrlSchema("url", "https://example.com/hook"),
    headers: z
      .record(z.string(), z.string(), { error: "headers must be an object of string values" })
      .superRefine((h, ctx) => {
        for (const name of Object.keys(h)) {
          if ((HTTP_VIGIL_HEADERS as readonly string[]).includes(name.toLowerCase())) {
            ctx.addIssue({
              code: "custom",
              path: [name],
              message: `headers may not set ${HTTP_VIGIL_HEADERS.join(", ")}: Vigil sets them itself`,
            });
          }
        }
      })
      .default({}),
    body: z
      .string({ error: "body must be a string (serialise JSON yourself)" })
      .max(256 * 1024)
      .optional(),
    timeoutMs: z
      .number({ error: "timeoutMs must be a number of milliseconds" })
      .int({ error: "timeoutMs must be a whole number" })
      .min(1, { error: "timeoutMs must be at least 1" })
      .max(600_000, { error: "timeoutMs must be at most 600000 (10 minutes)" })
      .default(10_000),
    signing: z
      .strictObject(
        { keyEnv: workerEnvVarName("signing.keyEnv") },
        { error: 'signing must be { "keyEnv": "NAME_OF_A_WORKER_VARIABLE_HOLDING_THE_KEY" }' },
      )
      .optional()
      .describe("sign with HMAC-SHA256; keyEnv names the worker environment variable holding the key"),
  }),
});

const records = z
  .number({ error: "records must be a whole number ≥ 0" })
  .int({ error: "records must be a whole number" })
  .min(0, { error: "records must be ≥ 0" })
  .default(1);

const millis = (what: string, max: number) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .int({ error: `${what} must be a whole number` })
    .min(0, { error: `${what} must be ≥ 0` })
    .max(max, { error: `${what} must be at most ${max}` });

export const demoSleepSpec = defineHandlerSpec({
  name: "demo.sleep",
  description: "Waits ms milliseconds (stops early when aborted) and reports `records` records.",
  payload: z.strictObject({ ms: millis("ms", 86_400_000).default(1000), records }),
});

export const demoFlakySpec = defineHandlerSpec({
  name: "demo.flaky",
  description: "Fails with probability p, otherwise succeeds after ms milliseconds.",
  payload: z.strictObject({
    p: z
      .number({ error: "p must be a probability between 0 and 1" })
      .min(0, { error: "p must be ≥ 0" })
      .max(1, { error: "p must be ≤ 1" })
      .default(0.5),
    ms: millis("ms", 86_400_000).default(0),
    records,
  }),
});

export const demoHangSpec = defineHandlerSpec({
  name: "demo.hang",
  description: "Never finishes and ignores its abort signal: only the hard timeout or a cancel ends it.",
  payload: z.strictObject({}),
});

export const demoCpuSpec = defineHandlerSpec({
  name: "demo.cpu",
  description: "Spins in a loop that never yields to the event loop (forever, or for ms milliseconds).",
  payload: z.strictObject({ ms: millis("ms", 86_400_000).optional() }),
});

export const demoNoopSpec = defineHandlerSpec({
  name: "demo.noop",
  description: "Does nothing and returns at once; for benchmarks.",
  payload: z.strictObject({ records: records.optional() }),
});

export { shellCommandSpec };

export const BUILTIN_HANDLER_SPECS = [
  ledgerPostSpec,
  httpRequestSpec,
  shellCommandSpec,
  demoSleepSpec,
  demoFlakySpec,
  demoHangSpec,
  demoCpuSpec,
  demoNoopSpec,
] as const;
