// Entry point of an executor thread: runs one attempt at a time on request. It is killable from
// the outside (worker.terminate() interrupts even a loop that never yields), which is the point:
// a handler that ignores its abort signal is still stopped.
// This module graph (and the handlers it loads) is loaded by Node's own type stripping, without
// tsx, so a replacement thread is ready sooner: relative imports name their .ts file, and type-only
// imports say `import type` (see thread-pool.ts, which falls back to tsx if that ever fails).
import { parentPort, workerData } from "node:worker_threads";
import { HANDLER_LOG_LEVELS } from "../../core/handlers/handler-context.ts";
import type { HandlerContext } from "../../core/handlers/handler-context.ts";
import { createThreadDb } from "../../core/handlers/create-run-db.ts";
import type { RunDb, ThreadDb } from "../../core/handlers/create-run-db.ts";
import type { HandlerDefinition } from "../../core/handlers/define-handler.ts";
import { loadHandlers } from "../handlers/load-handlers.ts";
import { setJobIdentity } from "../handlers/shell/job-identity.ts";
import { createRedactor } from "../../core/secrets/redact-secrets.ts";
import { traceHop } from "../lib/latency-trace.ts";
import { describeThrown } from "../../core/handlers/describe-thrown.ts";
import { OutputBudget } from "./output-budget.ts";
import type { AttemptTask, FromThread, ThreadData, ToThread } from "./thread-protocol.ts";

const port = parentPort;
if (!port) throw new Error("attempt-thread.ts must run in a worker thread");
const data = (workerData ?? {}) as Partial<ThreadData>;
setJobIdentity(data.jobIdentity);
// The same modules the main thread loaded (and advertised); a failure here kills the thread before it is ready.
const handlerImplementations: ReadonlyMap<string, HandlerDefinition> = new Map(
  (await loadHandlers({ sources: data.handlerSources ?? [], cwd: data.cwd })).map((h) => [h.def.name, h.def]),
);

let controller: AbortController | null = null;
let threadDb: ThreadDb | null = null;
const post = (m: FromThread) => port.postMessage(m);
const output = new OutputBudget(data.outputLimitBytes ?? 1024 * 1024);
let inRun = false;
const NO_SECRETS = createRedactor([]);
// The running (or last) attempt's secrets. Everything this thread posts or prints is redacted here, before the
// output budget or any length cap can cut a value in two (the executor redacts again).
let redact = NO_SECRETS;
captureOutput();

/**
 * console.*, process.stdout and process.stderr of this thread: during a run each write becomes a line of the run's
 * log (within its output budget); outside one (handler modules loading) it goes to the worker's own output as
 * before, still within the budget of the run that came last, so a timer a handler left behind cannot flood it.
 */
function captureOutput(): void {
  for (const [stream, level] of [
    [process.stdout, "info"],
    [process.stderr, "warn"],
  ] as const) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      const done = [encoding, cb].find((f): f is (err?: Error | null) => void => typeof f === "function");
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
      const kept = output.take(redact(text));
      if (kept !== null) {
        if (inRun)
          post({
            type: "log",
            level,
            message: kept.replace(/\r?\n$/, ""),
            fields: { stream: stream === process.stdout ? "stdout" : "stderr" },
          });
        else return original(kept, done);
      }
      if (done) queueMicrotask(() => done(null));
      return true;
    }) as typeof stream.write;
  }
}

port.on("message", (m: ToThread) => {
  if (m.type === "abort") controller?.abort(new Error(m.reason));
  else if (m.type === "run") void runAttempt(m.task);
});

async function runAttempt(task: AttemptTask): Promise<void> {
  controller = new AbortController();
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
  output.reset();
  inRun = true;
  // Most handlers never touch the database: the run's handle is made on first use of ctx.db or ctx.once.
  let runDb: RunDb | null = null;
  let ended = false;
  const useRunDb = (): RunDb => {
    if (runDb) return runDb;
    if (!data.databaseUrl) throw new Error("this executor thread was started without a database");
    threadDb ??= createThreadDb(data.databaseUrl);
    runDb = threadDb.forRun(task.runId);
    // Reached from work the handler left running after its run ended: a handle that refuses every statement.
    if (ended) runDb.close();
    return runDb;
  };
  redact = task.secrets?.length ? createRedactor(task.secrets) : NO_SECRETS;
  const ctx: HandlerContext = {
    runId: task.runId,
    scheduleId: task.scheduleId,
    idempotencyKey: task.idempotencyKey,
    attempt: task.attempt,
    signal: controller.signal,
    log: (level, message, fields) => {
      const kept = output.take(redact(String(message)));
      if (kept === null) return;
      post({
        type: "log",
        level: HANDLER_LOG_LEVELS.includes(level) ? level : "info",
        message: kept,
        fields: redact(cloneable(fields, MAX_FIELDS_BYTES)),
      });
    },
    once: (key, fn) => useRunDb().once(key, fn),
    get db() {
      return useRunDb().db;
    },
    redact: Object.assign((text: string) => redact(text), { longestForm: redact.longestForm }),
  };
  let outcome: FromThread;
  try {
    traceHop("handler_start", [task.runId]);
    const result = await impl.run(parsed.data, ctx);
    outcome = { type: "done", ok: true, result: redact(cloneable(result ?? {})) };
  } catch (err) {
    outcome = { type: "done", ok: false, error: describeThrown(err, redact), permanent: false };
  } finally {
    ended = true;
    // (TypeScript cannot see that useRunDb may have set it.)
    (runDb as RunDb | null)?.close();
    controller = null;
    inRun = false;
  }
  // Before the outcome: the attempt writes its log lines before it records how the run ended.
  if (output.droppedWrites > 0)
    post({ type: "output_dropped", bytes: output.droppedBytes, writes: output.droppedWrites, limitBytes: output.limitBytes });
  post(outcome);
}

/** A log line's fields beyond this many bytes of JSON are replaced by a note saying so. */
const MAX_FIELDS_BYTES = 16 * 1024;

/** Log fields and results cross a thread boundary: keep what JSON can carry. */
function cloneable(v: unknown, maxBytes = Infinity): Record<string, unknown> | null {
  if (v === undefined || v === null) return null;
  try {
    const json = JSON.stringify(v);
    if (json.length > maxBytes) return { fieldsDropped: `${json.length} bytes of fields, over the ${maxBytes} a line may carry` };
    return JSON.parse(json);
  } catch {
    return { unserialisable: describeThrown(v, redact) };
  }
}

post({ type: "ready" });
