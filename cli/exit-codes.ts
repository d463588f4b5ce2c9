// Exit codes a script can rely on; every failure of the CLI is one of these, with a message on stderr.
import { ApiError, ConsoleUnreachableError } from "../core/api-client/api-client";

export const EXIT = {
  ok: 0,
  /** The console refused or the operation failed (a conflict, a run that failed, a broken audit chain). */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing argument. */
  usage: 2,
  /** No token, or the console refused it (401), or its role or scopes are not enough (403). */
  auth: 3,
  /** The console could not be reached. */
  unreachable: 4,
} as const;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The exit code and the message for anything a command threw. */
export function describeFailure(err: unknown): { code: number; message: string } {
  if (err instanceof CliError) return { code: err.exitCode, message: err.message };
  if (err instanceof ConsoleUnreachableError) {
    return { code: EXIT.unreachable, message: `${err.message} (is it running? set --url, VIGIL_URL or the config file's url)` };
  }
  if (err instanceof ApiError) {
    if (err.status === 401) {
      return {
        code: EXIT.auth,
        message: `the console refused the API token (401 ${err.code}): it is unknown, revoked or expired. ${err.message}`,
      };
    }
    if (err.status === 403 && err.code === "forbidden") {
      return { code: EXIT.auth, message: `the API token's role is not enough (403 ${err.code}): ${err.message}` };
    }
    if (err.status === 403 && err.code === "scope_missing") {
      return { code: EXIT.auth, message: `the API token's scopes do not allow this (403 ${err.code}): ${err.message}` };
    }
    const fields = Object.entries(err.fields).map(([f, m]) => `\n  ${f}: ${m}`);
    return { code: EXIT.failure, message: `refused (${err.status} ${err.code}): ${err.message}${fields.join("")}` };
  }
  return { code: EXIT.failure, message: (err as Error)?.message ?? String(err) };
}
