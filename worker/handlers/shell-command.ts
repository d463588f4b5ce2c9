// shell.command: runs the user's executable (argv, or one /bin/sh script) in its own process group, with
// an environment built from scratch, its output streamed into the run's logs and its exit code as the
// outcome. Records come from the optional result file ($VIGIL_RESULT_FILE), removed after the attempt.
// Under a job user (shell/job-identity.ts) the program runs as that user, in a fresh folder only it may enter
// (its default working directory, HOME and TMPDIR), so it can read neither the worker's /proc entries nor its files.
import { chmod, chown, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { SHELL_OUTPUT_LINE_LIMIT, shellCommandSpec } from "../../core/handlers/shell-command-spec.ts";
import { buildChildEnv } from "./shell/child-env.ts";
import { OutputLog } from "./shell/output-log.ts";
import { readResultFile } from "./shell/read-result-file.ts";
import { runInProcessGroup } from "./shell/run-in-process-group.ts";
import { getJobIdentity } from "./shell/job-identity.ts";

export const shellCommand = defineHandler({
  ...shellCommandSpec,
  async run(p, ctx) {
    const who = getJobIdentity();
    if (who.mode === "refused") throw new Error(`this worker does not run programs: ${who.reason}`);
    const [file, ...args] = p.script !== undefined ? ["/bin/sh", "-c", p.script] : p.command!;
    if (p.cwd !== undefined) {
      const st = await stat(p.cwd).catch(() => null);
      if (!st?.isDirectory()) throw new Error(`cwd ${p.cwd} is not a directory on this worker`);
    }
    const dir = await mkdtemp(path.join(tmpdir(), "vigil-run-"));
    const resultFile = path.join(dir, "result.json");
    try {
      const separate = who.mode === "separate" ? who : null;
      if (separate) {
        await chown(dir, separate.uid, separate.gid);
        await chmod(dir, 0o700);
      }
      const env = buildChildEnv(
        p,
        { runId: ctx.runId, scheduleId: ctx.scheduleId, idempotencyKey: ctx.idempotencyKey, attempt: ctx.attempt, resultFile },
        separate ? { ...process.env, HOME: dir, TMPDIR: dir, USER: separate.user, LOGNAME: separate.user } : process.env,
      );
      ctx.signal.throwIfAborted();
      const out = new OutputLog((level, message) => ctx.log(level, message), p.maxOutputBytes, SHELL_OUTPUT_LINE_LIMIT, ctx.redact);
      const started = performance.now();
      const ids = separate ? { uid: separate.uid, gid: separate.gid } : {};
      const end = await runInProcessGroup(
        file!,
        args,
        { cwd: p.cwd ?? (separate ? dir : undefined), env, stdin: p.stdin, ...ids },
        out,
        (pid) => ctx.log("info", `started ${file} as pid ${pid} in its own process group${separate ? ` as user ${separate.user}` : ""}`),
      );
      const ms = Math.round(performance.now() - started);
      const tail = out.stderrTail.length > 0 ? `; last stderr: ${out.stderrTail.join(" | ")}` : "";
      const how = end.signal ? `killed by signal ${end.signal}` : `exit code ${end.code}`;
      ctx.log(
        end.code === 0 ? "info" : "warn",
        `${how} after ${ms} ms; ${out.bytesSeen} bytes of output${out.truncated ? ` (${out.bytesShown} stored)` : ""}`,
      );
      if (end.code !== 0) throw new Error(`${file} ${how}${tail}`);
      const result = await readResultFile(resultFile, separate?.uid, ctx.redact);
      return { records: result?.records, summary: result?.summary ?? `${file} exited 0 in ${ms} ms` };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
