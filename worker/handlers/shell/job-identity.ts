// Who a program job runs as. The worker holds what a job must never read (its environment, its files, the
// database's credentials), and a process of the same OS user can read all of it (/proc/<pid>/environ, the
// worker's files). So a job runs as a separate unprivileged user: the kernel then refuses it the worker's
// /proc entries and every file not open to "others". Only a worker running as root switches users: it must also
// signal the job's process group at a timeout or cancel and read its members' environments for the orphan sweeper
// (worker/orphan-process-sweeper.ts), which another user's processes refuse to anyone else. A worker that is not
// root serves no program handler unless its operator accepts same-user execution
// (VIGIL_WORKER_PROGRAMS=same-user). Decided once in the worker's main thread, handed to its executor threads.
import { execFileSync } from "node:child_process";

export type JobIdentity =
  { mode: "separate"; user: string; uid: number; gid: number } | { mode: "same-user" } | { mode: "refused"; reason: string };

/** Whether this worker runs jobs as another user and still controls them (signals, /proc): root only. */
export function canSwitchUsers(): boolean {
  return process.getuid?.() === 0;
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
        "this worker cannot run a job as another user (it is not root): run it as root so jobs run as " +
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
