// shell.command: runs the user's executable (argv, or one /bin/sh script) in its own process group, with
// an environment built from scratch, its output streamed into the run's logs and its exit code as the
// outcome. Records come from the optional result file ($VIGIL_RESULT_FILE), removed after the attempt.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { SHELL_OUTPUT_LINE_LIMIT, shellCommandSpec } from "../../core/handlers/shell-command-spec.ts";
import { buildChildEnv } from "./shell/child-env.ts";
import { OutputLog } from "./shell/output-log.ts";
import { readResultFile } from "./shell/read-result-file.ts";
import { runInProcessGroup } from "./shell/run-in-process-group.ts";

export const shellCommand = defineHandler({
  ...shellCommandSpec,
  async run(p, ctx) {
    const [file, ...args] = p.script !== undefined ? ["/bin/sh", "-c", p.script] : p.command!;
    if (p.cwd !== undefined) {
      const st = await stat(p.cwd).catch(() => null);
      if (!st?.isDirectory()) throw new Error(`cwd ${p.cwd} is not a directory on this worker`);
    }
    const dir = await mkdtemp(path.join(tmpdir(), "vigil-run-"));
    const resultFile = path.join(dir, "result.json");
    try {
      const env = buildChildEnv(p, {
        runId: ctx.runId,
        scheduleId: ctx.scheduleId,
        idempotencyKey: ctx.idempotencyKey,
        attempt: ctx.attempt,
        resultFile,
      });
      ctx.signal.throwIfAborted();
      const out = new OutputLog((level, message) => ctx.log(level, message), p.maxOutputBytes, SHELL_OUTPUT_LINE_LIMIT, ctx.redact);
      const started = performance.now();
      const end = await runInProcessGroup(file!, args, { cwd: p.cwd, env, stdin: p.stdin }, out, (pid) =>
        ctx.log("info", `started ${file} as pid ${pid} in its own process group`),
      );
      const ms = Math.round(performance.now() - started);
      const tail = out.stderrTail.length > 0 ? `; last stderr: ${out.stderrTail.join(" | ")}` : "";
      const how = end.signal ? `killed by signal ${end.signal}` : `exit code ${end.code}`;
      ctx.log(
        end.code === 0 ? "info" : "warn",
        `${how} after ${ms} ms; ${out.bytesSeen} bytes of output${out.truncated ? ` (${out.bytesShown} stored)` : ""}`,
      );
      if (end.code !== 0) throw new Error(`${file} ${how}${tail}`);
      const result = await readResultFile(resultFile, ctx.redact);
      return { records: result?.records, summary: result?.summary ?? `${file} exited 0 in ${ms} ms` };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
