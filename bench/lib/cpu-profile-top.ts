// The top entries of V8 CPU profiles (`node --cpu-prof`): self time per function (name, file, line), summed over
// every profile in a folder — the worker processes' main threads and their executor threads — so a bench can print
// where its processes' JavaScript time went. Idle time is left out; samples before `skipMs` after a profile's start
// (start-up: loading modules, warming threads) are skipped.
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

/** Lines: total sampled time, then the `top` functions by self time with their share. */
export function cpuProfileTop(dir: string, opts: { skipMs?: number; top?: number } = {}): string[] {
  const top = opts.top ?? 15;
  const skipUs = (opts.skipMs ?? 0) * 1000;
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")) : [];
  if (files.length === 0) return ["CPU profile: none written (the processes did not exit normally)"];
  const self = new Map<string, number>();
  let total = 0;
  for (const f of files) {
    const p = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as CpuProfile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const samples = p.samples ?? [];
    const deltas = p.timeDeltas ?? [];
    let at = 0;
    for (let i = 0; i < samples.length; i++) {
      at += deltas[i] ?? 0;
      const node = byId.get(samples[i]!);
      if (!node || at < skipUs || node.callFrame.functionName === "(idle)") continue;
      const us = deltas[i + 1] ?? 0; // the time until the next sample belongs to this one
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url ? `${url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/")}:${lineNumber + 1}` : "";
      const key = `${functionName || "(anonymous)"} ${where}`.trim();
      self.set(key, (self.get(key) ?? 0) + us);
      total += us;
    }
  }
  const cwd = process.cwd() + "/";
  return [
    `CPU profile of the worker processes (${files.length} threads, ${(total / 1e6).toFixed(1)} s busy); top ${top} by self time:`,
    ...[...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${k.replace(cwd, "")}`,
      ),
  ];
}
