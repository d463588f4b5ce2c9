// What this worker runs: handler modules to load (--handlers / VIGIL_HANDLERS) and which of the loaded
// handlers it serves (--serve / VIGIL_SERVE). A flag replaces its variable; both take comma-separated
// lists and may repeat (`--handlers ./jobs --handlers @acme/jobs`).
import { parseHandlerSources } from "./handlers/load-handlers";
import { WORKER_POOL_PATTERN, WORKER_POOL_RULE } from "../core/queue/worker-pool";

export const WORKER_USAGE = `usage: npm run worker -- [--handlers FOLDER|FILE|PACKAGE]... [--serve NAMES]... [--pool NAME]
Runs one worker against DATABASE_URL (or VIGIL_WORKER_DATABASE_URL), or the embedded database of a running Vigil.
--handlers: handler modules to load besides the built-ins (default VIGIL_HANDLERS); comma-separated, may repeat.
--serve: which loaded handlers it serves, names or patterns with * (default VIGIL_SERVE, all).
--pool: the worker pool it serves: only the runs of the teams assigned that pool (default VIGIL_WORKER_POOL; none:
        only the runs of the teams without a pool).`;

export class WorkerOptionsError extends Error {
  override name = "WorkerOptionsError";
}

export interface WorkerOptions {
  handlerSources: string[];
  /** Name patterns ("*" matches any run of characters): a handler is served if any matches. */
  serve: string[];
  /** The worker pool it serves (core/queue/worker-pool.ts), or null: the teams without a pool. */
  pool: string | null;
}

export function parseWorkerOptions(
  argv: string[],
  env: { VIGIL_HANDLERS: string; VIGIL_SERVE: string; VIGIL_WORKER_POOL?: string },
): WorkerOptions {
  const flags: Record<"handlers" | "serve" | "pool", string[]> = { handlers: [], serve: [], pool: [] };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(handlers|serve|pool)(?:=(.*))?$/.exec(argv[i]!);
    if (!m)
      throw new WorkerOptionsError(
        `Unknown argument "${argv[i]}": the worker takes --handlers <folder|file|package>, --serve <names> and --pool <name>`,
      );
    const value = m[2] ?? argv[++i];
    if (value === undefined || value.startsWith("--")) throw new WorkerOptionsError(`--${m[1]} needs a value`);
    flags[m[1] as "handlers" | "serve" | "pool"].push(value);
  }
  if (flags.pool.length > 1) throw new WorkerOptionsError("--pool is given once: a worker serves one pool");
  const pool = (flags.pool[0] ?? env.VIGIL_WORKER_POOL ?? "").trim() || null;
  if (pool !== null && !WORKER_POOL_PATTERN.test(pool))
    throw new WorkerOptionsError(`--pool "${pool}" is not a pool name: a pool's name uses ${WORKER_POOL_RULE}`);
  const serve = parseHandlerSources(flags.serve.length > 0 ? flags.serve : [env.VIGIL_SERVE]);
  return {
    handlerSources: parseHandlerSources(flags.handlers.length > 0 ? flags.handlers : [env.VIGIL_HANDLERS]),
    serve: serve.length > 0 ? serve : ["*"],
    pool,
  };
}

export function servesHandler(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) =>
    new RegExp(
      `^${p
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    ).test(name),
  );
}
