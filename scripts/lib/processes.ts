// Child processes with prefixed output, used by `npm start` and the test suite.
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";

export interface Managed {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

export function launch(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {
    quiet?: boolean;
    sink?: NodeJS.WritableStream;
    /** Opens an IPC channel that closes when this process dies: a worker then drains and exits (worker/main.ts). */
    exitWithParent?: boolean;
    /** Working directory (default: this process's). */
    cwd?: string;
    /**
     * Settings handed through a pipe instead of the environment (scripts/lib/handed-settings.ts): the child reads
     * them once at start (core/env.ts); they never appear in its /proc/<pid>/environ.
     */
    settings?: Record<string, string>;
  } = {},
): Managed {
  const stdio: ("ignore" | "pipe" | "ipc")[] = ["ignore", "pipe", "pipe", ...(opts.exitWithParent ? ["ipc" as const] : [])];
  const settingsFd = opts.settings ? stdio.push("pipe") - 1 : undefined;
  const child = spawn(process.execPath, args, {
    env: settingsFd === undefined ? env : { ...env, VIGIL_SETTINGS_FD: String(settingsFd) },
    cwd: opts.cwd,
    stdio,
  });
  if (settingsFd !== undefined) {
    const pipe = child.stdio[settingsFd] as NodeJS.WritableStream & { on(e: "error", f: () => void): void };
    pipe.on("error", () => undefined); // a child that died before reading it
    pipe.end(JSON.stringify(opts.settings));
  }
  const prefix = `[${name}]`;
  for (const stream of [child.stdout!, child.stderr!]) {
    const rl = readline.createInterface({ input: stream });
    rl.on("line", (line) => {
      if (!opts.quiet) process.stdout.write(`${prefix} ${line}\n`);
      opts.sink?.write(`${prefix} ${line}\n`);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { name, child, exited };
}

/** SIGTERM, then SIGKILL if the process has not exited within timeoutMs. */
export async function terminate(m: Managed, timeoutMs = 20000): Promise<void> {
  if (m.child.exitCode !== null || m.child.signalCode !== null) return;
  m.child.kill("SIGTERM");
  const timer = setTimeout(() => m.child.kill("SIGKILL"), timeoutMs);
  await m.exited;
  clearTimeout(timer);
}
