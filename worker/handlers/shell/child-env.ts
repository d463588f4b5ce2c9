// The environment of a shell.command child, built from scratch: never a copy of the worker's own, which
// holds DATABASE_URL, the admin password and the webhook secret. Only harmless basics are inherited;
// anything else the job needs is named in the payload (env values, or passEnv names read from the worker).
import { SHELL_BASE_ENV, type ShellCommandPayload } from "../../../core/handlers/shell-command-spec.ts";

export interface ChildRunMeta {
  runId: string;
  scheduleId: string;
  idempotencyKey: string;
  attempt: number;
  resultFile: string;
}

const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

export function buildChildEnv(
  p: Pick<ShellCommandPayload, "env" | "passEnv">,
  meta: ChildRunMeta,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SHELL_BASE_ENV) {
    const v = source[name];
    if (v !== undefined) env[name] = v;
  }
  for (const [name, v] of Object.entries(source)) if (name.startsWith("LC_") && v !== undefined) env[name] = v;
  env.PATH ??= DEFAULT_PATH;
  const missing = p.passEnv.filter((n) => source[n] === undefined);
  if (missing.length > 0) {
    throw new Error(`passEnv names ${missing.join(", ")}, which this worker's environment does not have`);
  }
  for (const name of p.passEnv) env[name] = source[name]!;
  Object.assign(env, p.env);
  // Last, so nothing above can shadow them (the payload schema refuses VIGIL_* names anyway).
  env.VIGIL_RUN_ID = meta.runId;
  env.VIGIL_SCHEDULE_ID = meta.scheduleId;
  env.VIGIL_IDEMPOTENCY_KEY = meta.idempotencyKey;
  env.VIGIL_ATTEMPT = String(meta.attempt);
  env.VIGIL_RESULT_FILE = meta.resultFile;
  return env;
}
