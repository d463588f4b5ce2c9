// The process environment, parsed once and typed. Every module reads configuration from here.
import { z } from "zod";
import { parseProxyTrust } from "./http/proxy-trust";
import { parseEgressAllow } from "./http/egress/egress-policy";
import { DomainError } from "./errors";
import { parseRoleMap } from "./auth/oidc/role-map";
import { parseTeamRules } from "./auth/oidc/team-rules";

const optionalText = z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().trim().optional());

const bool = z
  .string()
  .optional()
  .transform((v) => v === "true");

/** A number setting: empty or unset is `def`; `integer` refuses a fraction. */
const numeric = (def: number, kind: "integer" | "number") =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return def;
      const n = Number(v);
      if (kind === "integer" ? !Number.isInteger(n) : !Number.isFinite(n)) {
        ctx.addIssue({ code: "custom", message: `must be ${kind === "integer" ? "an integer" : "a number"}, got "${v}"` });
        return z.NEVER;
      }
      return n;
    });
const int = (def: number) => numeric(def, "integer");
const decimal = (def: number) => numeric(def, "number");

/** Parses base64 keys of 32 bytes, comma-separated (at most `max`). */
function secretKeys(max: number) {
  return (v: string | undefined, ctx: z.RefinementCtx): Buffer[] | undefined => {
    if (v === undefined) return undefined;
    const parts = v
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length > max) {
      ctx.addIssue({ code: "custom", message: "must be one key" });
      return z.NEVER;
    }
    const keys = parts.map((p) => Buffer.from(p, "base64"));
    const bad = keys.findIndex((k, i) => k.length !== 32 || !/^[A-Za-z0-9+/=_-]+$/.test(parts[i]!));
    if (bad >= 0) {
      ctx.addIssue({
        code: "custom",
        message: `must be 32 bytes in base64 (44 characters; e.g. \`openssl rand -base64 32\`), got ${keys[bad]!.length} bytes`,
      });
      return z.NEVER;
    }
    return keys;
  };
}

export const envSchema = z.object({
  DATABASE_URL: z.string().optional(),
  // Least-privilege logins (docs/how-to/database-roles.md): with an external server, DATABASE_URL is the owner's
  // (migrations) and these are what `npm start` gives the console and the workers; a worker started on its own uses
  // VIGIL_WORKER_DATABASE_URL when set. Unset: both use DATABASE_URL, as before.
  VIGIL_CONSOLE_DATABASE_URL: optionalText,
  VIGIL_WORKER_DATABASE_URL: optionalText,
  VIGIL_DATA_DIR: z.string().default(".vigil/pgdata"),
  VIGIL_PG_PORT: int(54329),
  PORT: int(3000),
  VIGIL_ADMIN_EMAIL: z.string().optional(),
  VIGIL_ADMIN_PASSWORD: z.string().optional(),
  VIGIL_WORKER_CONCURRENCY: int(8),
  // Handler modules a worker loads besides the built-ins: folders, files or packages, comma-separated.
  VIGIL_HANDLERS: z.string().default(""),
  // Which of its loaded handlers a worker serves: comma-separated names or patterns ("payouts.*"); all by default.
  VIGIL_SERVE: z.string().default("*"),
  // The worker pool a worker serves (core/queue/worker-pool.ts): only the runs of the teams assigned that pool; empty:
  // only the runs of the teams without a pool.
  VIGIL_WORKER_POOL: z.string().default(""),
  // Programs on the worker's host (shell.command and handlers marked runsPrograms): "allow" runs them as the
  // unprivileged VIGIL_JOB_USER (a system user the worker creates when missing; a worker not running as root
  // serves none); "refuse" serves none; "same-user" runs them as the worker's own user, which lets a job
  // read the worker's environment and files (only where that is accepted). docs/how-to/program-jobs.md.
  VIGIL_WORKER_PROGRAMS: z.enum(["allow", "refuse", "same-user"], { error: 'must be "allow", "refuse" or "same-user"' }).default("allow"),
  VIGIL_JOB_USER: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]{0,31}$/, { error: "must be a user name such as vigil-job" })
    .default("vigil-job"),
  VIGIL_WORKER_DB_POOL: int(6),
  // Connections of each process's main pool (core/db/pool.ts), console and worker alike.
  VIGIL_DB_POOL_MAX: int(10),
  VIGIL_HEARTBEAT_MS: int(2000),
  VIGIL_ZOMBIE_AFTER_MS: int(8000),
  VIGIL_WORKER_DEAD_AFTER_MS: int(10000),
  VIGIL_PLAN_AHEAD_SECONDS: int(120),
  VIGIL_DRAIN_TIMEOUT_MS: int(15000),
  VIGIL_METRICS_PUBLIC: bool,
  // Per-run metrics (counts by state, histograms) cover runs planned within this window (seconds).
  VIGIL_METRICS_WINDOW_SECONDS: int(3600),
  // Alerts: evaluated by every worker; webhooks go to a schedule's webhook_url and/or this global URL.
  VIGIL_ALERT_EVAL_MS: int(2000),
  VIGIL_ALERT_WEBHOOK_URL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ),
  // Body of the global webhook: Vigil's JSON, or "slack" (a `text` message chat tools accept).
  VIGIL_ALERT_WEBHOOK_FORMAT: z.enum(["vigil", "slack"], { error: 'must be "vigil" or "slack"' }).default("vigil"),
  VIGIL_ALERT_WEBHOOK_SECRET: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
  VIGIL_ALERT_WEBHOOK_TIMEOUT_MS: int(5000),
  VIGIL_ALERT_WEBHOOK_MAX_ATTEMPTS: int(12),
  VIGIL_ALERT_WEBHOOK_BACKOFF_BASE_MS: int(1000),
  VIGIL_ALERT_WEBHOOK_BACKOFF_MAX_MS: int(300000),
  VIGIL_ALERT_LATENESS_WINDOW_SECONDS: int(900),
  VIGIL_ALERT_PLANNER_LAG_MS: int(5000),
  // Consecutive failed / timed-out / zombie runs before a schedule alerts, unless it sets its own; 0 = only schedules
  // that set their own. Evaluated by the workers; the console shows it in the schedule form, so set it on both.
  VIGIL_ALERT_FAILURE_THRESHOLD: int(3),
  // Audit anchors (core/audit/publish-audit-anchor.ts): how often (seconds; 0 = never) a worker publishes the chain head
  // outside the database when it changed — always as a log line, and to this JSON-lines file and/or webhook when set.
  VIGIL_AUDIT_ANCHOR_INTERVAL: int(60),
  VIGIL_AUDIT_ANCHOR_FILE: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
  VIGIL_AUDIT_ANCHOR_WEBHOOK: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ),
  // Signs the anchor webhook like the alert webhooks (X-Vigil-Signature); VIGIL_ALERT_WEBHOOK_SECRET when unset.
  VIGIL_AUDIT_ANCHOR_WEBHOOK_SECRET: z.preprocess((v) => (v === "" ? undefined : v), z.string().optional()),
  // Egress policy (core/http/egress/): http.request and the alert and audit anchor webhooks refuse loopback, private,
  // link-local and other internal addresses unless allowed here — comma-separated addresses, CIDR ranges, host names.
  VIGIL_EGRESS_ALLOW: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseEgressAllow(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
  VIGIL_SECURE_COOKIES: bool,
  // Check every JSON success answer against the route's published contract and log the ones outside it (the e2e
  // suite sets it and fails on such a line). Costs a schema check per answer; off in production.
  VIGIL_CHECK_ANSWERS: bool,
  // Which proxies' X-Forwarded-For/-Host/-Proto to believe: unset → none (the client is the socket peer),
  // a number of proxies in front, or addresses/CIDR ranges/"loopback"/"private" (core/http/proxy-trust.ts).
  VIGIL_TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseProxyTrust(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
  // API token lifetimes in days: the default when the creator names none, and the longest allowed.
  VIGIL_TOKEN_TTL_DAYS: int(90),
  VIGIL_TOKEN_MAX_TTL_DAYS: int(365),
  // The key secrets are encrypted with (AES-256-GCM): 32 random bytes, base64. Optional until a secret is set or resolved.
  VIGIL_SECRET_KEY: z
    .preprocess((v) => (v === "" ? undefined : v), z.string().optional().transform(secretKeys(1)))
    .transform((keys) => keys?.[0]),
  // Keys values may still be encrypted with during a rotation (comma-separated): workers read with them and
  // re-encrypt under VIGIL_SECRET_KEY when they start.
  VIGIL_SECRET_KEY_PREVIOUS: z
    .preprocess((v) => (v === "" ? undefined : v), z.string().optional().transform(secretKeys(Infinity)))
    .transform((keys) => keys ?? []),
  // Retention (core/retention/): how long history is kept, in days; 0 keeps it forever. See the README's "Retention".
  VIGIL_RETENTION_RUNS_DAYS: int(30),
  VIGIL_RETENTION_LOGS_DAYS: int(7),
  VIGIL_RETENTION_ONCE_MARKERS_DAYS: int(35),
  VIGIL_RETENTION_ALERTS_DAYS: int(30),
  VIGIL_RETENTION_LOGIN_ATTEMPTS_DAYS: int(1),
  VIGIL_RETENTION_SUMMARIES_DAYS: int(400),
  VIGIL_RETENTION_JOBS_DAYS: int(1),
  VIGIL_RETENTION_EVERY_SECONDS: int(600),
  VIGIL_RETENTION_BATCH_SIZE: int(5000),
  // The runs step's duty cycle: after each DELETE batch the pass pauses this many times the batch's own duration
  // (capped at VIGIL_RETENTION_MAX_PAUSE_MS), so claims and finishes get the CPU and the WAL back between batches.
  VIGIL_RETENTION_PAUSE_RATIO: decimal(1),
  VIGIL_RETENTION_MAX_PAUSE_MS: int(5000),
  // The most WAL the runs step writes per second (MB; 0 = no bound; "auto" = half of what the server's max_wal_size,
  // checkpoint_timeout and checkpoint_completion_target take without a requested checkpoint), so the pass does not
  // push the server into checkpoints back to back (README "Retention").
  VIGIL_RETENTION_MAX_WAL_MB_PER_S: z
    .string()
    .optional()
    .transform((v, ctx): number | "auto" => {
      if (v === undefined || v === "" || v === "auto") return "auto";
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 10_000) {
        ctx.addIssue({ code: "custom", message: `must be "auto", 0 (no bound) or a number of MB up to 10000, got "${v}"` });
        return z.NEVER;
      }
      return n;
    }),
  // synchronous_commit of the retention pass's own session: off, its commits do not wait for their WAL to reach disk
  // (a delete lost to a crash is redone by the next pass), and the workers' commits flush less of its WAL.
  VIGIL_RETENTION_SYNCHRONOUS_COMMIT: z.enum(["on", "off"], { error: "must be on or off" }).default("off"),
  // The runs step's batches wait for gaps between the fleet's firings: a run that just came due and has not started, a
  // backlog of due runs the workers are draining, or one due sooner than the last batch took, holds the next batch
  // back (at most VIGIL_RETENTION_MAX_PAUSE_MS).
  VIGIL_RETENTION_YIELD_TO_RUNS: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  // Single sign-on (OIDC): set the issuer, client id (and secret) and a role map to show "Sign in with …".
  VIGIL_OIDC_ISSUER: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be the provider's issuer URL (https://…)" }).optional(),
  ),
  VIGIL_OIDC_CLIENT_ID: optionalText,
  // A secret: never logged, shown or audited. Unset → a public client (PKCE only).
  VIGIL_OIDC_CLIENT_SECRET: optionalText,
  // Where the provider sends the browser back; by default this console's own /api/auth/oidc/callback.
  VIGIL_OIDC_REDIRECT_URL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL ending in /api/auth/oidc/callback" }).optional(),
  ),
  // The provider's name on the sign-in button ("Sign in with <name>"); the issuer's host by default.
  VIGIL_OIDC_NAME: optionalText,
  VIGIL_OIDC_SCOPES: z.string().default("openid email profile"),
  // The claim (dotted path for nested ones) whose values VIGIL_OIDC_ROLE_MAP maps to a role.
  VIGIL_OIDC_ROLE_CLAIM: z.string().trim().min(1).default("groups"),
  VIGIL_OIDC_ROLE_MAP: optionalText.transform((v, ctx) => {
    if (v === undefined) return undefined;
    try {
      return parseRoleMap(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  }),
  // Team roles from the provider's claims (core/auth/oidc/team-rules.ts): a JSON array of rules, rewritten into the
  // user's single-sign-on team memberships at each sign-in.
  VIGIL_OIDC_TEAM_RULES: optionalText.transform((v, ctx) => {
    if (v === undefined) return [];
    try {
      return parseTeamRules(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  }),
  // "off" hides the password form and refuses POST /api/auth/login: everyone signs in through OIDC.
  VIGIL_LOCAL_LOGIN: z
    .preprocess((v) => (v === "" ? undefined : v), z.enum(["on", "off"], { error: 'must be "on" or "off"' }).default("on"))
    .transform((v) => v === "on"),
  // Sign-in throttle (core/auth/login-rate-limit.ts), per (account, client address): this many failures (in a day,
  // since the pair's last success) are free, then each further attempt of that pair waits a delay that doubles from
  // the base up to the max. An address with at least the ceiling's failures in 15 minutes (any accounts) gets no
  // free failures on any account it has failed on; an account it has not failed on is never slowed by it.
  VIGIL_LOGIN_FREE_FAILURES: int(5).pipe(z.number().min(0, "must be 0 or more")),
  VIGIL_LOGIN_DELAY_BASE_SECONDS: int(2).pipe(z.number().min(1, "must be at least 1")),
  VIGIL_LOGIN_DELAY_MAX_SECONDS: int(900).pipe(z.number().min(1, "must be at least 1").max(86_400, "must be at most 86400 (a day)")),
  VIGIL_LOGIN_ADDRESS_CEILING: int(100).pipe(z.number().min(1, "must be at least 1")),
  // Limits that hold against one handler run or one client (docs/reference/limits.md). A handler thread's total
  // memory (JavaScript heap plus external memory and array buffers): over it the run fails and its thread is replaced.
  // The bytes of console.log / stdout / stderr / ctx.log output kept per run: the rest is dropped at the source.
  // The change streams (GET /api/changes) one session or API token may hold open at once: more answer 429.
  VIGIL_HANDLER_MEMORY_MB: int(512),
  VIGIL_HANDLER_OUTPUT_KB: int(1024),
  VIGIL_CHANGE_STREAMS_PER_SESSION: int(8),
  VIGIL_LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal"]).default("info"),
  // Test hook: shifts this process's wall clock to prove scheduling never reads it.
  VIGIL_TEST_CLOCK_SKEW_MS: int(0),
  NODE_ENV: z.string().default("development"),
});

export type Env = z.infer<typeof envSchema>;

function checkTokenLifetimes(env: Env): string[] {
  const problems: string[] = [];
  if (env.VIGIL_TOKEN_MAX_TTL_DAYS < 1) problems.push("VIGIL_TOKEN_MAX_TTL_DAYS: must be at least 1 day");
  if (env.VIGIL_TOKEN_TTL_DAYS < 1 || env.VIGIL_TOKEN_TTL_DAYS > env.VIGIL_TOKEN_MAX_TTL_DAYS) {
    problems.push(`VIGIL_TOKEN_TTL_DAYS: must be between 1 and VIGIL_TOKEN_MAX_TTL_DAYS (${env.VIGIL_TOKEN_MAX_TTL_DAYS})`);
  }
  return problems;
}

function checkAlerts(env: Env): string[] {
  const n = env.VIGIL_ALERT_FAILURE_THRESHOLD;
  if (n < 0 || n > 1000)
    return [`VIGIL_ALERT_FAILURE_THRESHOLD: must be between 0 (no failure alerts by default) and 1000 failures, got ${n}`];
  return [];
}

function checkRetention(env: Env): string[] {
  const problems: string[] = [];
  for (const k of Object.keys(env) as (keyof Env)[]) {
    if (k.startsWith("VIGIL_RETENTION_") && k.endsWith("_DAYS") && ((env[k] as number) < 0 || (env[k] as number) > 3650)) {
      problems.push(`${k}: must be between 0 (keep forever) and 3650 days`);
    }
  }
  if (env.VIGIL_RETENTION_JOBS_DAYS < 1) problems.push("VIGIL_RETENTION_JOBS_DAYS: must be at least 1 day");
  if (env.VIGIL_RETENTION_EVERY_SECONDS < 10) problems.push("VIGIL_RETENTION_EVERY_SECONDS: must be at least 10");
  if (env.VIGIL_RETENTION_BATCH_SIZE < 100 || env.VIGIL_RETENTION_BATCH_SIZE > 100_000) {
    problems.push("VIGIL_RETENTION_BATCH_SIZE: must be between 100 and 100000");
  }
  if (env.VIGIL_RETENTION_PAUSE_RATIO < 0 || env.VIGIL_RETENTION_PAUSE_RATIO > 20) {
    problems.push("VIGIL_RETENTION_PAUSE_RATIO: must be between 0 (no pause) and 20");
  }
  if (env.VIGIL_RETENTION_MAX_PAUSE_MS < 0 || env.VIGIL_RETENTION_MAX_PAUSE_MS > 60_000) {
    problems.push("VIGIL_RETENTION_MAX_PAUSE_MS: must be between 0 and 60000");
  }
  return problems;
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function checkOidc(env: Env): string[] {
  const problems: string[] = [];
  if (env.VIGIL_OIDC_ISSUER) {
    if (!env.VIGIL_OIDC_CLIENT_ID) problems.push("VIGIL_OIDC_CLIENT_ID: required with VIGIL_OIDC_ISSUER");
    if (!env.VIGIL_OIDC_ROLE_MAP) {
      problems.push(
        "VIGIL_OIDC_ROLE_MAP: required with VIGIL_OIDC_ISSUER, e.g. `vigil-admins=admin,payments-oncall=operator` (add `*=viewer` to let everyone else in as viewer)",
      );
    }
    const issuer = new URL(env.VIGIL_OIDC_ISSUER);
    if (issuer.protocol === "http:" && !isLoopbackHost(issuer.hostname)) {
      problems.push("VIGIL_OIDC_ISSUER: must be https (plain http only for a provider on this machine: localhost, 127.0.0.1)");
    }
    if (!env.VIGIL_OIDC_SCOPES.split(/\s+/).includes("openid")) problems.push('VIGIL_OIDC_SCOPES: must include "openid"');
  } else if (!env.VIGIL_LOCAL_LOGIN) {
    problems.push("VIGIL_LOCAL_LOGIN: can be off only when single sign-on is configured (VIGIL_OIDC_ISSUER); nobody could sign in");
  }
  return problems;
}

/**
 * Settings a launcher hands this process through a pipe instead of its environment (scripts/lib/handed-settings.ts):
 * database URLs and keys, which a job's process could otherwise read from /proc/<pid>/environ. VIGIL_SETTINGS_FD
 * names the pipe; it is read to its end once, closed, and kept on globalThis so every copy of this module in the
 * process (the console's bundles) sees the same values.
 */
const HANDED = Symbol.for("vigil.handedSettings");
function handedSettings(): Record<string, string> {
  const g = globalThis as { [HANDED]?: Record<string, string> };
  if (g[HANDED]) return g[HANDED];
  const fd = Number(process.env.VIGIL_SETTINGS_FD);
  let handed: Record<string, string> = {};
  if (Number.isInteger(fd) && fd > 2) {
    const fs = process.getBuiltinModule("node:fs");
    handed = z.record(z.string(), z.string()).parse(JSON.parse(fs.readFileSync(fd, "utf8")));
    fs.closeSync(fd);
    delete process.env.VIGIL_SETTINGS_FD;
  }
  g[HANDED] = handed;
  return handed;
}

/** Adds settings as if handed (a worker started on its own finds a running embedded Vigil's); read by the next getEnv. */
export function provideSettings(values: Record<string, string>): void {
  Object.assign(handedSettings(), values);
  cached = undefined;
}

let cached: Env | undefined;

export function getEnv(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse({ ...process.env, ...handedSettings() });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment: ${lines.join("; ")}`);
  }
  const problems = [
    ...checkTokenLifetimes(parsed.data),
    ...checkRetention(parsed.data),
    ...checkAlerts(parsed.data),
    ...checkOidc(parsed.data),
  ];
  if (problems.length > 0) throw new Error(`Invalid environment: ${problems.join("; ")}`);
  cached = parsed.data;
  return cached;
}

/** The secret store's key; a clear error when it is not configured (only setting or resolving a secret needs it). */
export function requireSecretKey(): Buffer {
  const key = getEnv().VIGIL_SECRET_KEY;
  if (!key) {
    throw new DomainError(
      409,
      "secret_key_missing",
      "VIGIL_SECRET_KEY is not set: secrets cannot be stored or resolved without it. Set it to 32 random bytes in base64 " +
        "(`openssl rand -base64 32`) for the console and every worker; `npm start` with the embedded database creates one for you.",
    );
  }
  return key;
}

/** The current key first, then the previous ones a value may still be encrypted with (a rotation in progress). */
export function requireSecretKeyring(): Buffer[] {
  return [requireSecretKey(), ...getEnv().VIGIL_SECRET_KEY_PREVIOUS];
}

export function requireDatabaseUrl(): string {
  const url = getEnv().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start Vigil with `npm start`, or set DATABASE_URL");
  return url;
}
