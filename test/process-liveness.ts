// Whether processes are alive, read from /proc (Linux): a zombie (exited, waiting for its parent or init
// to collect its status) is dead; members of a process group are found by their pgrp field.
import fs from "node:fs";

function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses; the last ")" ends it.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  const f = statFields(pid);
  return f !== null && f[0] !== "Z";
}

/** process.kill(pid, 0) throws ESRCH: not even a zombie is left. */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Live (non-zombie) processes whose process group is pgid. */
export function liveGroupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (f && f[0] !== "Z" && Number(f[2]) === pgid) pids.push(Number(name));
  }
  return pids;
}
