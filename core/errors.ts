// Typed domain errors and their one mapping to an HTTP status and JSON body.
export type FieldErrors = Record<string, string>;

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: FieldErrors,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, fields?: FieldErrors, code = "validation_failed") {
    super(422, code, message, fields);
  }
}
export class BadRequestError extends DomainError {
  constructor(message: string, code = "bad_request", fields?: FieldErrors) {
    super(400, code, message, fields);
  }
}
export class UnauthorizedError extends DomainError {
  constructor(message = "Sign in first: this needs a session or an API token.") {
    super(401, "unauthorized", message);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message = "Your role does not allow this action.") {
    super(403, "forbidden", message);
  }
}
export class NotFoundError extends DomainError {
  constructor(what: string, id?: string) {
    super(404, "not_found", id ? `${what} ${id} does not exist.` : `${what} does not exist.`);
  }
}
export class ConflictError extends DomainError {
  constructor(message: string, code = "conflict", fields?: FieldErrors) {
    super(409, code, message, fields);
  }
}
export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super(413, "payload_too_large", message);
  }
}
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, "rate_limited", message);
  }
}

export class DatabaseUnavailableError extends DomainError {
  constructor(message = "Database unavailable — retrying: the database is restarting or cannot be reached; try again in a few seconds.") {
    super(503, "database_unavailable", message);
  }
}

// PostgreSQL SQLSTATEs that mean "the server is not there right now", not "your statement is wrong":
// class 08 (connection exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now
// ("the database system is starting up / in recovery mode / shutting down").
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "08000", "08001", "08003", "08004", "08006"]);
const UNAVAILABLE_SYSCALL_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
// node-postgres reports a lost or closed socket with these messages and no code.
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "connection timeout",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "the database system is",
];

/** True when err (or what it wraps) says the database cannot be reached or is restarting. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === "string" && (UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_SYSCALL_CODES.has(e.code))) return true;
  if (typeof e.message === "string" && UNAVAILABLE_MESSAGES.some((m) => (e.message as string).includes(m))) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

// 40P01 deadlock_detected, 40001 serialization_failure: the transaction lost a race with another one and was
// rolled back whole; the same request again is expected to succeed. Never the caller's fault, never a 500.
const CONCURRENCY_SQLSTATES = new Set(["40P01", "40001"]);

/** True when err is a deadlock or serialisation failure (the transaction may simply be run again). */
export function isConcurrencyFailure(err: unknown): boolean {
  return !!err && typeof err === "object" && CONCURRENCY_SQLSTATES.has(String((err as { code?: unknown }).code));
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: FieldErrors };
}

/**
 * Maps any thrown value to a status and body; a database that is down or restarting is a 503 the client may
 * retry, a deadlock or serialisation failure a 409 concurrent_change, and other unknown errors become an opaque 500 without internals.
 */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (!(err instanceof DomainError) && isDatabaseUnavailable(err)) err = new DatabaseUnavailableError();
  if (!(err instanceof DomainError) && isConcurrencyFailure(err)) {
    err = new ConflictError("This changed concurrently with another request and was not applied; try again.", "concurrent_change");
  }
  if (err instanceof DomainError) {
    return {
      status: err.status,
      body: { error: { code: err.code, message: err.message, ...(err.fields ? { fields: err.fields } : {}) } },
    };
  }
  return { status: 500, body: { error: { code: "internal", message: "Something went wrong on the server; it has been logged." } } };
}

/** zod issues → { "trigger.cron": "message" } so a form can show each next to its field. */
export function fieldErrorsFromZod(issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".") || "_";
    fields[key] ??= issue.message;
  }
  return fields;
}
