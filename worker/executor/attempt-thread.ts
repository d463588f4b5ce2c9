// Entry point of an executor thread: runs one attempt at a time on request. It is killable from
// the outside (worker.terminate() interrupts even a loop that never yields), which is the point:
// a handler that ignores its abort signal is still stopped.
// This module graph (and the handlers it loads) is loaded by Node's own type stripping, without
// tsx, so a replacement thread is ready sooner: relative imports name their .ts file, and type-only
// imports say `import type` (see thread-pool.ts, which falls back to tsx if that ever fails).
import { format } from "node:util";
import { parentPort, workerData } from "node:worker_threads";
import { HANDLER_LOG_LEVELS } from "../../core/handlers/handler-context.ts";
import type { HandlerContext } from "../../core/handlers/handler-context.ts";
import { createThreadDb } from "../../core/handlers/create-run-db.ts";
import type { ThreadDb } from "../../core/handlers/create-run-db.ts";
import type { HandlerDefinition } from "../../core/handlers/define-handler.ts";
import { loadHandlers } from "../handlers/load-handlers.ts";
import { createRedactor } from "../../core/secrets/redact-secrets.ts";
import { traceHop } from "../lib/latency-trace.ts";
import type { AttemptTask, FromThread, ThreadData, ToThread } from "./thread-protocol.ts";

const port = parentPort;
if (!port) throw new Error("attempt-thread.ts must run in a worker thread");
const data = (workerData ?? {}) as Partial<ThreadData>;
// The same modules the main thread loaded (and advertised); a failure here kills the thread before it is ready.
const handlerImplementations: ReadonlyMap<string, HandlerDefinition> = new Map(
  (await loadHandlers({ sources: data.handlerSources ?? [], cwd: data.cwd })).map((h) => [h.def.name, h.def]),
);

let controller: AbortController | null = null;
let threadDb: ThreadDb | null = null;
const post = (m: FromThread) => port.postMessage(m);

// A handler's console output belongs to its run: once attempts run here, it goes through the run's log (where
// the attempt redacts its secrets and counts the lines) instead of straight to the worker's own output.
let consoleToRunLog = false;
// The running attempt's secrets. Everything this thread posts is redacted here already, so a length cap applied
// on either side of the boundary never cuts a value in two before it is matched (the executor redacts again).
let redact = createRedactor([]);
for (const [method, level] of [
  ["log", "info"],
  ["info", "info"],
  ["debug", "debug"],
  ["warn", "warn"],
  ["error", "error"],
] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) =>
    consoleToRunLog ? post({ type: "log", level, message: redact(format(...args)), fields: null }) : original(...args);
}

port.on("message", (m: ToThread) => {
  if (m.type === "abort") controller?.abort(new Error(m.reason));
  else if (m.type === "run") void runAttempt(m.task);
});

async function runAttempt(task: AttemptTask): Promise<void> {
  controller = new AbortController();
  consoleToRunLog = true;
  const impl = handlerImplementations.get(task.handler);
  if (!impl) {
    post({ type: "done", ok: false, error: `No handler named "${task.handler}" is registered in this worker`, permanent: true });
    return;
  }
  const parsed = impl.payload.safeParse(task.payload);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
    post({ type: "done", ok: false, error: `Payload does not fit ${task.handler}: ${detail}`, permanent: true });
    return;
  }
  threadDb ??= createThreadDb(task.databaseUrl);
  const runDb = threadDb.forRun(task.runId);
  redact = createRedactor(task.secrets ?? []);
  const ctx: HandlerContext = {
    runId: task.runId,
    scheduleId: task.scheduleId,
    idempotencyKey: task.idempotencyKey,
    attempt: task.attempt,
    signal: controller.signal,
    log: (level, message, fields) =>
      post({
        type: "log",
        level: HANDLER_LOG_LEVELS.includes(level) ? level : "info",
        message: redact(String(message)),
        fields: redact(cloneable(fields)),
      }),
    once: runDb.once,
    db: runDb.db,
    redact: Object.assign((text: string) => redact(text), { longestForm: redact.longestForm }),
  };
  try {
    traceHop("handler_start", [task.runId]);
    const result = await impl.run(parsed.data, ctx);
    post({ type: "done", ok: true, result: redact(cloneable(result ?? {})) });
  } catch (err) {
    post({ type: "done", ok: false, error: redact(describe(err)), permanent: false });
  } finally {
    runDb.close();
    controller = null;
  }
}

/** Log fields and results cross a thread boundary: keep what JSON can carry. */
function cloneable(v: unknown): Record<string, unknown> | null {
  if (v === undefined || v === null) return null;
  try {
    return JSON.parse(JSON.stringify(v));
  } catch {
    return { unserialisable: String(v) };
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message ? `${err.name === "Error" ? "" : `${err.name}: `}${err.message}` : err.name;
  return String(err);
}

post({ type: "ready" });
