// shell.command: the payload of a job that runs an executable on the worker's host. Kept apart from
// the other built-in specs because its contract (environment, output, records channel) is longer.
import { z } from "zod";
import { defineHandlerSpec } from "./define-handler.ts";
import { SHELL_COMMAND_HANDLER } from "./process-group-handlers.ts";
import { ENV_VAR_NAME_PATTERN, isVigilConfigVariable, workerEnvVarName } from "./env-var-name.ts";

export const SHELL_OUTPUT_LINE_LIMIT = 900;
export const SHELL_DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** Variables the job always gets from the worker when the worker has them (nothing secret). */
export const SHELL_BASE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR"] as const;

const text = (what: string, max: number) =>
  z
    .string({ error: `${what} must be a string` })
    .max(max, { error: `${what} must be at most ${max} characters` })
    .refine((s) => !s.includes("\0"), { error: `${what} must not contain a NUL character` });

export const shellCommandSpec = defineHandlerSpec({
  name: SHELL_COMMAND_HANDLER,
  runsPrograms: true,
  description:
    "Runs an executable on the worker's host: `command` is the argv array (no shell), or `script` runs one script with /bin/sh -c. " +
    "Exit code 0 succeeds; any other code or a signal fails the attempt. stdout/stderr go into the run's logs (stderr as warn), " +
    "capped by maxOutputBytes and 900 lines. The environment is built from scratch: PATH, HOME, USER, LOGNAME, LANG, LC_*, TZ, TMPDIR " +
    "as the worker has them, `passEnv` names passed through, `env`, and VIGIL_RUN_ID, VIGIL_SCHEDULE_ID, VIGIL_IDEMPOTENCY_KEY, " +
    "VIGIL_ATTEMPT, VIGIL_RESULT_FILE — never DATABASE_URL or Vigil's own settings. Records: write " +
    '{"records": N, "summary": "…"} to the file named by $VIGIL_RESULT_FILE; without it no count is reported (a schedule ' +
    "expecting records then ends hollow). Timeout and cancel send SIGTERM to the whole process group, SIGKILL after the grace.",
  payload: z
    .strictObject({
      command: z
        .array(text("each command argument", 32 * 1024), { error: 'command must be an array of strings, e.g. ["pg_dump", "-Fc", "mydb"]' })
        .min(1, { error: "command must name the executable to run as its first element" })
        .max(256, { error: "command may have at most 256 arguments" })
        .refine((a) => (a[0] ?? "").trim() !== "", { error: "command[0] must name an executable" })
        .optional()
        .describe("argv array run without a shell; command[0] is the program (found through PATH)"),
      script: text("script", 64 * 1024)
        .refine((s) => s.trim() !== "", { error: "script must not be empty" })
        .optional()
        .describe("instead of command: one script run with /bin/sh -c"),
      cwd: text("cwd", 4096)
        .refine((s) => s.startsWith("/"), { error: "cwd must be an absolute path such as /srv/jobs" })
        .optional()
        .describe(
          "absolute working directory (default: a fresh folder of the job's own; the worker's under VIGIL_WORKER_PROGRAMS=same-user)",
        ),
      env: z
        .record(z.string(), text("env values", 32 * 1024), { error: 'env must be an object of string values, e.g. {"REGION": "eu"}' })
        .superRefine((env, ctx) => {
          for (const name of Object.keys(env)) {
            const problem = !ENV_VAR_NAME_PATTERN.test(name)
              ? "env names must be letters, digits and _, not starting with a digit"
              : isVigilConfigVariable(name)
                ? "env may not set DATABASE_URL or VIGIL_* names (Vigil sets VIGIL_RUN_ID and the others itself)"
                : null;
            if (problem) ctx.addIssue({ code: "custom", path: [name], message: problem });
          }
        })
        .default({})
        .describe("variables set for the program; VIGIL_RUN_ID, VIGIL_IDEMPOTENCY_KEY, VIGIL_RESULT_FILE… are added"),
      passEnv: z
        .array(workerEnvVarName("passEnv entries"), { error: 'passEnv must be an array of variable names, e.g. ["PAYOUT_TOKEN"]' })
        .max(64, { error: "passEnv may name at most 64 variables" })
        .default([])
        .describe("worker environment variables passed through by name (never DATABASE_URL or VIGIL_*)"),
      stdin: text("stdin", 1024 * 1024)
        .optional()
        .describe("text written to the program's standard input"),
      maxOutputBytes: z
        .number({ error: "maxOutputBytes must be a number of bytes" })
        .int({ error: "maxOutputBytes must be a whole number" })
        .min(1024, { error: "maxOutputBytes must be at least 1024" })
        .max(16 * 1024 * 1024, { error: "maxOutputBytes must be at most 16777216 (16 MiB)" })
        .default(SHELL_DEFAULT_MAX_OUTPUT_BYTES)
        .describe("stdout+stderr stored in the run's logs per attempt; the rest is dropped after a marker line"),
    })
    .superRefine((p, ctx) => {
      if ((p.command === undefined) === (p.script === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [p.command === undefined ? "command" : "script"],
          message: 'give exactly one of command (an argv array, e.g. ["/usr/bin/env", "true"]) or script (a /bin/sh script string)',
        });
      }
    }),
});

export type ShellCommandPayload = z.output<typeof shellCommandSpec.payload>;
