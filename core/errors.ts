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
export class TooManyRequestsError extends DomainError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(429, "rate_limited", message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: FieldErrors };
}

/** Maps any thrown value to a status and body; unknown errors become an opaque 500 without internals. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody } {
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
