// Structured logs: JSON lines by default, pretty in a terminal. Each process names itself once
// (console, worker, start); lines about a run carry runId, scheduleId, attempt and workerId.
import pino from "pino";
import { getEnv } from "./env";

let root: pino.Logger | undefined;

export function getLogger(): pino.Logger {
  if (root) return root;
  const name = process.env.VIGIL_PROCESS ?? "vigil";
  const pretty = process.stdout.isTTY && process.env.VIGIL_LOG_FORMAT !== "json";
  root = pino({
    name,
    level: getEnv().VIGIL_LOG_LEVEL,
    base: { process: name, pid: process.pid },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { colorize: true, ignore: "pid,hostname", translateTime: "HH:MM:ss.l" } } }
      : {}),
  });
  return root;
}

export type Logger = pino.Logger;

export interface RunLogFields {
  runId: string;
  scheduleId: string;
  attempt: number;
  workerId?: string | null;
}

/**
 * A child logger for lines about one run: each carries runId, scheduleId, attempt and workerId, so the
 * process log and the run page tell the same story and one filter finds it. workerId is added only
 * when the base logger does not already carry it (pino would print the key twice).
 */
export function runLogger(base: pino.Logger, run: RunLogFields): pino.Logger {
  return base.child(runLogBindings(base, run));
}

/** The fields runLogger binds, for a single line about a run that need not make a child logger. */
export function runLogBindings(base: pino.Logger, run: RunLogFields): Record<string, unknown> {
  const fields: Record<string, unknown> = { runId: run.runId, scheduleId: run.scheduleId, attempt: run.attempt };
  if (run.workerId && !bindsWorkerId(base)) fields.workerId = run.workerId;
  return fields;
}

// pino's bindings() parses the logger's bound fields from JSON on every call; the answer is kept per logger
// (Vigil never rebinds a logger's fields).
const workerIdBound = new WeakMap<pino.Logger, boolean>();

function bindsWorkerId(base: pino.Logger): boolean {
  let bound = workerIdBound.get(base);
  if (bound === undefined) workerIdBound.set(base, (bound = base.bindings().workerId !== undefined));
  return bound;
}
