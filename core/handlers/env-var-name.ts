// Names of environment variables in handler payloads (a job's env, variables passed through from the
// worker, the variable holding a signing key). Vigil's own configuration (DATABASE_URL, VIGIL_*) can
// never be named: a schedule must not be a way to hand the worker's database password to a job.
import { z } from "zod";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isVigilConfigVariable(name: string): boolean {
  return name === "DATABASE_URL" || name.toUpperCase().startsWith("VIGIL_");
}

/** A worker environment variable a payload may name (not Vigil's own configuration). */
export const workerEnvVarName = (what: string) =>
  z
    .string({ error: `${what} must be an environment variable name such as PAYOUT_TOKEN` })
    .max(128, { error: `${what} must be at most 128 characters` })
    .regex(NAME, { error: `${what} must be an environment variable name: letters, digits and _, not starting with a digit` })
    .refine((n) => !isVigilConfigVariable(n), { error: `${what} may not name Vigil's own configuration (DATABASE_URL, VIGIL_*)` });

export const ENV_VAR_NAME_PATTERN = NAME;
