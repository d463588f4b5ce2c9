// Runs one child in its own process group (spawned detached: setsid, pgid = its pid) and reports the group
// to the executor, which SIGTERMs it at abort and SIGKILLs it when the grace ends — from the main thread,
// so even a thread being terminated cannot leave the group behind. When the child exits by itself, any
// member of its group still alive (a backgrounded or daemonised grandchild that kept the group) is killed
// here: a job must not leak processes. A process that left the group (setsid) is out of reach.
import { spawn, type ChildProcess } from "node:child_process";
import { reportProcessGroup } from "../../executor/report-process-group.ts";
import { hasLiveGroupMembers } from "./has-live-group-members.ts";
import type { OutputLog } from "./output-log.ts";

export interface ProcessEnd {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  leftoversKilled: boolean;
}

/** How long the pipes may stay open after the group is gone (a process that escaped the group holds them). */
const PIPE_CLOSE_WAIT_MS = 2000;
/**
 * How long members still alive when the command exits get to end on their own before they are SIGKILLed. A group
 * SIGTERMed at a cancel ends member by member: the shell may exit a moment before its `sleep`, which is ending too
 * and must not be reported as a leftover that needed a SIGKILL.
 */
const LEFTOVER_END_WAIT_MS = 200;
const LEFTOVER_POLL_MS = 10;

async function leftoversStillAlive(pid: number): Promise<boolean> {
  const until = performance.now() + LEFTOVER_END_WAIT_MS;
  while (hasLiveGroupMembers(pid)) {
    if (performance.now() >= until) return true;
    await new Promise((r) => setTimeout(r, LEFTOVER_POLL_MS));
  }
  return false;
}

export function runInProcessGroup(
  file: string,
  args: string[],
  /** uid/gid: the job user (worker/handlers/shell/job-identity.ts); libuv also drops supplementary groups then. */
  opts: { cwd?: string; env: Record<string, string>; stdin?: string; uid?: number; gid?: number },
  out: OutputLog,
  onStarted: (pid: number) => void,
): Promise<ProcessEnd> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: opts.cwd,
        env: opts.env as NodeJS.ProcessEnv,
        detached: true,
        ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
        stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (err) {
      reject(new Error(`could not start ${file}: ${(err as Error).message}`));
      return;
    }
    const pid = child.pid;
    if (pid === undefined) {
      child.once("error", (err) => reject(new Error(`could not start ${file}: ${err.message}`)));
      return;
    }
    reportProcessGroup(pid, "started");
    onStarted(pid);
    child.on("error", () => undefined);
    child.stdout!.on("data", (c: Buffer) => out.write("stdout", c));
    child.stderr!.on("data", (c: Buffer) => out.write("stderr", c));
    if (opts.stdin !== undefined) {
      // A child that exits without reading its input must not fail the attempt with EPIPE.
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(opts.stdin);
    }
    const closed = new Promise<void>((r) => child.once("close", () => r()));
    child.once("exit", async (code, signal) => {
      const leftoversKilled = await leftoversStillAlive(pid);
      if (leftoversKilled) {
        try {
          process.kill(-pid, "SIGKILL");
          reportProcessGroup(pid, "leftovers_killed");
        } catch {
          // ESRCH: they ended meanwhile.
        }
      }
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((r) => (timer = setTimeout(r, PIPE_CLOSE_WAIT_MS)));
      void Promise.race([closed, waited]).then(() => {
        clearTimeout(timer);
        child.stdout!.destroy();
        child.stderr!.destroy();
        out.end();
        reportProcessGroup(pid, "exited");
        resolve({ pid, code, signal, leftoversKilled });
      });
    });
  });
}
