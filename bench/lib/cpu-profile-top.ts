// The top entries of V8 CPU profiles (`node --cpu-prof`): self time per function (name, file, line), summed over
// every profile in a folder — the worker processes' main threads and their executor threads — so a bench can print
// where its processes' JavaScript time went. Idle time is left out, and so is every sample outside the measured
// window (start-up: loading modules, warming threads; shut-down after the last run). A sample stands for the wall
// time until the next one: on a loaded machine a thread that is preempted (or waits in a system call, as
// postMessage may when it wakes the receiving thread) is charged for that wait, so read shares, not CPU seconds.
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/**
 * Now on the clock V8 stamps profiles with (the monotonic clock, in µs; the same in every process and thread of the
 * machine), for CpuProfileOptions.window.
 */
export function profileClockUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface CpuProfileOptions {
  /** Only samples taken in [from, to] (profileClockUs) count. */
  window?: { fromUs: number; toUs: number };
  /** Functions listed (default 15), and Vigil's own listed apart (default 10). */
  top?: number;
  topVigil?: number;
  /** Runs done in the window: the figures are also given per 1,000 runs. */
  runs?: number;
}

/**
 * Where a function's code comes from: Vigil's own files, a dependency (by package), Node's own JavaScript, or native
 * code with no script (postMessage, socket writes, the garbage collector, "(program)").
 */
function originOf(url: string, cwd: string): string {
  if (!url) return "native and V8";
  if (url.startsWith("node:")) return "Node's JavaScript";
  const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1]!;
  return url.replace(/^file:\/\//, "").startsWith(cwd) ? "Vigil" : "other";
}

/** Node names a profile CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is a process's main thread. */
const isMainThread = (file: string) => file.split(".").at(-3) === "0";

/**
 * Lines: the busy time (main threads and executor threads apart, per 1,000 runs when given), its split by origin,
 * then the `top` functions by self time with their share and thread kind.
 */
export function cpuProfileTop(dir: string, opts: CpuProfileOptions = {}): string[] {
  const top = opts.top ?? 15;
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")) : [];
  if (files.length === 0) return ["CPU profile: none written (the processes did not exit normally)"];
  const cwd = process.cwd() + "/";
  const self = new Map<string, { us: number; main: number; vigil: boolean }>();
  const byOrigin = new Map<string, number>();
  let total = 0;
  let mainTotal = 0;
  for (const f of files) {
    const main = isMainThread(f);
    const p = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as CpuProfile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const samples = p.samples ?? [];
    const deltas = p.timeDeltas ?? [];
    let at = p.startTime;
    for (let i = 0; i < samples.length; i++) {
      at += deltas[i] ?? 0;
      const node = byId.get(samples[i]!);
      if (!node || node.callFrame.functionName === "(idle)") continue;
      if (opts.window && (at < opts.window.fromUs || at > opts.window.toUs)) continue;
      const us = deltas[i + 1] ?? 0; // the time until the next sample belongs to this one
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url ? `${url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/")}:${lineNumber + 1}` : "";
      const key = `${functionName || "(anonymous)"} ${where}`.trim().replace(cwd, "");
      const origin = originOf(url, cwd);
      const entry = self.get(key) ?? {
        us: 0,
        main: 0,
        vigil: origin === "Vigil",
      };
      entry.us += us;
      if (main) entry.main += us;
      self.set(key, entry);
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
      total += us;
      if (main) mainTotal += us;
    }
  }
  const mainFiles = files.filter(isMainThread).length;
  const perK = (us: number) => (opts.runs ? `, ${((us / 1e3 / opts.runs) * 1000).toFixed(0)} ms per 1,000 runs` : "");
  const pct = (us: number) => `${((us / Math.max(total, 1)) * 100).toFixed(1)}%`;
  const list = (entries: [string, { us: number; main: number }][], n: number) =>
    entries
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, n)
      .map(
        ([k, e]) =>
          `  ${pct(e.us).padStart(6)}  ${(e.us / 1e3).toFixed(0).padStart(6)} ms  ${`${Math.round((e.main / Math.max(e.us, 1)) * 100)}/${Math.round(((e.us - e.main) / Math.max(e.us, 1)) * 100)}`.padStart(7)}  ${k}`,
      );
  const vigilUs = byOrigin.get("Vigil") ?? 0;
  return [
    `CPU profile of the worker processes (${files.length} threads: ${mainFiles} main, ${files.length - mainFiles} executor), ` +
      `${(total / 1e6).toFixed(2)} s busy${perK(total)}: main threads ${(mainTotal / 1e6).toFixed(2)} s${perK(mainTotal)}, ` +
      `executor threads ${((total - mainTotal) / 1e6).toFixed(2)} s${perK(total - mainTotal)}`,
    `  by origin: ${[...byOrigin.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([o, us]) => `${o} ${pct(us)}`)
      .join(", ")}`,
    `  top ${top} by self time (share, ms, where: main thread / executor threads):`,
    ...list([...self.entries()], top),
    `  Vigil's own code: ${pct(vigilUs)}, ${(vigilUs / 1e3).toFixed(0)} ms${perK(vigilUs)}; its top ${opts.topVigil ?? 10}:`,
    ...list(
      [...self.entries()].filter(([, e]) => e.vigil),
      opts.topVigil ?? 10,
    ),
  ];
}
