// What every command's action gets: the typed API client (made on first use, so --help and usage errors
// need no token) and whether to print JSON.
import type { Command } from "commander";
import { createApiClient, type ApiClient } from "../core/api-client/api-client";
import { resolveConnection } from "./cli-config";
import { CliError, EXIT } from "./exit-codes";

export interface GlobalOptions {
  url?: string;
  json?: boolean;
}

export interface CliContext {
  json: boolean;
  client(): ApiClient;
}

export function contextOf(command: Command): CliContext {
  const opts = command.optsWithGlobals<GlobalOptions>();
  let client: ApiClient | null = null;
  return {
    json: opts.json === true,
    client() {
      client ??= createApiClient(resolveConnection({ url: opts.url }));
      return client;
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A schedule named by its id or its exact name. */
export async function resolveScheduleId(ctx: CliContext, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const page = await ctx.client().call("getSchedules", { query: { q: ref, limit: 500 } });
  const found = page.schedules.find((s) => s.name === ref);
  if (!found) throw new CliError(EXIT.failure, `no schedule named ${ref}`);
  return found.id;
}

export function requireUuid(what: string, value: string): string {
  if (!UUID.test(value)) throw new CliError(EXIT.usage, `${what} must be an id (UUID), got ${JSON.stringify(value)}`);
  return value;
}

/** Several values given as repeated options or comma-separated. */
export function collect(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(EXIT.usage, `expected a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return n;
}
