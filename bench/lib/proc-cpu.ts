// CPU time of a process tree, read from /proc (Linux): utime + stime of each live process in the tree plus its
// cutime + cstime (children that exited and were reaped, e.g. Postgres backends of closed connections: a
// process's cutime holds only dead descendants, so nothing is counted twice). In seconds of one core.
import fs from "node:fs";

const TICKS = 100; // USER_HZ on Linux

interface Stat {
  pid: number;
  ppid: number;
  own: number;
  children: number;
}

function readStat(pid: number): Stat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command (field 2) is in parentheses and may hold spaces: split after its closing one.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(rest[i - 3]);
    return { pid, ppid: n(4), own: (n(14) + n(15)) / TICKS, children: (n(16) + n(17)) / TICKS };
  } catch {
    return null;
  }
}

/** Total CPU seconds of `roots` and all their descendants. */
export function treeCpuSeconds(roots: number[]): number {
  const all: Stat[] = [];
  for (const e of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    const s = readStat(Number(e));
    if (s) all.push(s);
  }
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  let total = 0;
  const seen = new Set<number>();
  const visit = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    const s = all.find((x) => x.pid === pid);
    if (!s) return;
    total += s.own + s.children;
    for (const c of byParent.get(pid) ?? []) visit(c.pid);
  };
  for (const r of roots) visit(r);
  return total;
}

export function parentPid(pid: number): number | null {
  return readStat(pid)?.ppid ?? null;
}
