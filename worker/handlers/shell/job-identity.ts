// Who a program job runs as. The worker holds what a job must never read (its environment, its files, the
// database's credentials), and a process of the same OS user can read all of it (/proc/<pid>/environ, the
// worker's files). So a job runs as a separate unprivileged user: the kernel then refuses it the worker's
// /proc entries and every file not open to "others". Switching users needs root (or CAP_SETUID and CAP_SETGID);
// a worker without that serves no program handler unless its operator accepts same-user execution
// (VIGIL_WORKER_PROGRAMS=same-user). Decided once in the worker's main thread, handed to its executor threads.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export type JobIdentity =
  { mode: "separate"; user: string; uid: number; gid: number } | { mode: "same-user" } | { mode: "refused"; reason: string };

const CAP_SETGID = 6n;
const CAP_SETUID = 7n;

/** Whether this process may switch a child to another user: root, or holding CAP_SETUID and CAP_SETGID. */
export function canSwitchUsers(): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    const line = readFileSync("/proc/self/status", "utf8")
      .split("\n")
      .find((l) => l.startsWith("CapEff:"));
    const caps = BigInt(`0x${line?.slice(7).trim() ?? "0"}`);
    return ((caps >> CAP_SETUID) & 1n) === 1n && ((caps >> CAP_SETGID) & 1n) === 1n;
  } catch {
    return false;
  }
}

function idsOf(user: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync("id", ["-u", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })),
    gid: Number(execFileSync("id", ["-g", user], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })),
  };
}

/** The job user's ids; as root, the user is created (system user, own group, no home, no login shell) if missing. */
function ensureJobUser(user: string): { uid: number; gid: number } {
  try {
    return idsOf(user);
  } catch {
    if (process.getuid?.() !== 0) throw new Error(`there is no user ${user} (create it, or set VIGIL_JOB_USER to an existing one)`);
    execFileSync(
      "useradd",
      ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", user],
      { stdio: "ignore" },
    );
    return idsOf(user);
  }
}

export function resolveJobIdentity(setting: "allow" | "refuse" | "same-user", user: string): JobIdentity {
  if (setting === "refuse") return { mode: "refused", reason: "VIGIL_WORKER_PROGRAMS=refuse" };
  if (setting === "same-user") return { mode: "same-user" };
  if (!canSwitchUsers()) {
    return {
      mode: "refused",
      reason:
        "this worker cannot run a job as another user (it is not root and lacks CAP_SETUID/CAP_SETGID): run it as root so jobs run as " +
        `${user}, or accept that jobs can read this worker's environment and files with VIGIL_WORKER_PROGRAMS=same-user`,
    };
  }
  let ids: { uid: number; gid: number };
  try {
    ids = ensureJobUser(user);
  } catch (err) {
    return { mode: "refused", reason: `the job user ${user} is not usable: ${(err as Error).message}` };
  }
  if (ids.uid === 0 || ids.gid === 0 || ids.uid === process.getuid?.()) {
    return {
      mode: "refused",
      reason: `the job user ${user} is root or this worker's own user: name an unprivileged user in VIGIL_JOB_USER`,
    };
  }
  return { mode: "separate", user, ...ids };
}

// Per thread: each executor thread has its own copy of this module, set from its workerData before any attempt.
let current: JobIdentity = { mode: "same-user" };

export function setJobIdentity(identity: JobIdentity | undefined): void {
  if (identity) current = identity;
}

export function getJobIdentity(): JobIdentity {
  return current;
}
