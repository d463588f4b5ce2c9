// Whether a process group still has a live member. kill(-pgid, 0) also succeeds for members that already
// died but were not collected yet (zombies), so on Linux /proc says which are really running; elsewhere
// (no /proc) any member counts.
import { readdirSync, readFileSync } from "node:fs";

export function hasLiveGroupMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid pgrp …": comm may contain spaces and parentheses; the last ")" ends it.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}
