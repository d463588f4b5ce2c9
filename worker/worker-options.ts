// What this worker runs: handler modules to load (--handlers / VIGIL_HANDLERS) and which of the loaded
// handlers it serves (--serve / VIGIL_SERVE). A flag replaces its variable; both take comma-separated
// lists and may repeat (`--handlers ./jobs --handlers @acme/jobs`).
import { parseHandlerSources } from "./handlers/load-handlers";

export const WORKER_USAGE = `usage: npm run worker -- [--handlers FOLDER|FILE|PACKAGE]... [--serve NAMES]...
Runs one worker against DATABASE_URL (or VIGIL_WORKER_DATABASE_URL), or the embedded database of a running Vigil.
--handlers: handler modules to load besides the built-ins (default VIGIL_HANDLERS); comma-separated, may repeat.
--serve: which loaded handlers it serves, names or patterns with * (default VIGIL_SERVE, all).`;

export class WorkerOptionsError extends Error {
  override name = "WorkerOptionsError";
}

export interface WorkerOptions {
  handlerSources: string[];
  /** Name patterns ("*" matches any run of characters): a handler is served if any matches. */
  serve: string[];
}

export function parseWorkerOptions(argv: string[], env: { VIGIL_HANDLERS: string; VIGIL_SERVE: string }): WorkerOptions {
  const flags: Record<"handlers" | "serve", string[]> = { handlers: [], serve: [] };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(handlers|serve)(?:=(.*))?$/.exec(argv[i]!);
    if (!m)
      throw new WorkerOptionsError(`Unknown argument "${argv[i]}": the worker takes --handlers <folder|file|package> and --serve <names>`);
    const value = m[2] ?? argv[++i];
    if (value === undefined || value.startsWith("--")) throw new WorkerOptionsError(`--${m[1]} needs a value`);
    flags[m[1] as "handlers" | "serve"].push(value);
  }
  const serve = parseHandlerSources(flags.serve.length > 0 ? flags.serve : [env.VIGIL_SERVE]);
  return {
    handlerSources: parseHandlerSources(flags.handlers.length > 0 ? flags.handlers : [env.VIGIL_HANDLERS]),
    serve: serve.length > 0 ? serve : ["*"],
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
