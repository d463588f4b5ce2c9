import { describe, expect, it } from "vitest";
import { ConflictError, isDatabaseUnavailable, toErrorResponse } from "./errors";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("toErrorResponse while the database is down", () => {
  it.each([
    ["connection refused", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["connection refused on every address", new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })], "")],
    ["a connection terminated mid-query", new Error("Connection terminated unexpectedly")],
    ["a server shutting down", pgError("57P01", "terminating connection due to administrator command")],
    ["a server that crashed", pgError("57P02", "terminating connection because of crash of another server process")],
    ["a server starting up", pgError("57P03", "the database system is starting up")],
    ["a server in recovery", pgError("57P03", "the database system is in recovery mode")],
    ["a wrapped cause", new Error("query failed", { cause: new Error("Connection terminated") })],
  ])("answers 503 database_unavailable for %s", (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    const { status, body } = toErrorResponse(err);
    expect(status).toBe(503);
    expect(body.error.code).toBe("database_unavailable");
    expect(body.error.message).toMatch(/Database unavailable — retrying/);
  });

  it("keeps a real bug an opaque 500 and a domain error its own status", () => {
    expect(toErrorResponse(pgError("42P01", 'relation "x" does not exist')).status).toBe(500);
    expect(toErrorResponse(new TypeError("x is undefined")).status).toBe(500);
    expect(toErrorResponse(new ConflictError("stale")).status).toBe(409);
  });
});

describe("toErrorResponse for a transaction that lost a concurrency race", () => {
  it.each([
    ["a deadlock", pgError("40P01", "deadlock detected")],
    ["a serialisation failure", pgError("40001", "could not serialize access due to concurrent update")],
  ])("answers 409 concurrent_change for %s, never 500", (_what, err) => {
    const { status, body } = toErrorResponse(err);
    expect(status).toBe(409);
    expect(body.error.code).toBe("concurrent_change");
    expect(body.error.message).not.toMatch(/deadlock|serialize/);
  });
});
