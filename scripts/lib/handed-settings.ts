// Credentials reach the console and the workers through a pipe, not their environment: a process's environment
// is readable by every process of its user (/proc/<pid>/environ), which includes a job a worker runs. The launcher
// takes these settings out of the child's environment and writes them as one JSON object to an extra pipe whose
// descriptor VIGIL_SETTINGS_FD names; core/env.ts reads it to its end once at start and closes it.
export const HANDED_SETTINGS = [
  "DATABASE_URL",
  "VIGIL_CONSOLE_DATABASE_URL",
  "VIGIL_WORKER_DATABASE_URL",
  "VIGIL_SECRET_KEY",
  "VIGIL_SECRET_KEY_PREVIOUS",
  "VIGIL_ADMIN_PASSWORD",
  "VIGIL_OIDC_CLIENT_SECRET",
  "VIGIL_ALERT_WEBHOOK_SECRET",
  "VIGIL_AUDIT_ANCHOR_WEBHOOK_SECRET",
] as const;

/**
 * The child's environment without any handed setting, and the settings to hand it: `env`'s own values of them,
 * overridden by `settings` (undefined removes one).
 */
export function splitSettings(
  env: NodeJS.ProcessEnv,
  settings: Record<string, string | undefined>,
): { env: NodeJS.ProcessEnv; settings: Record<string, string> } {
  const rest: NodeJS.ProcessEnv = { ...env };
  const handed: Record<string, string | undefined> = {};
  for (const name of HANDED_SETTINGS) {
    handed[name] = env[name];
    delete rest[name];
  }
  Object.assign(handed, settings);
  return {
    env: rest,
    settings: Object.fromEntries(Object.entries(handed).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")),
  };
}
