// A strict little parser for the Prometheus text exposition format (0.0.4), so tests can prove the
// /api/metrics output is well-formed and find series in it. Throws on any malformed line.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseValue(v: string, line: string): number {
  if (v === "+Inf") return Infinity;
  if (v === "-Inf") return -Infinity;
  if (v === "NaN") return NaN;
  const n = Number(v);
  if (v === "" || Number.isNaN(n)) throw new Error(`bad sample value "${v}" in: ${line}`);
  return n;
}

function parseLabels(body: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf("=", i);
    if (eq < 0) throw new Error(`bad labels in: ${line}`);
    const key = body.slice(i, eq).trim();
    if (!LABEL.test(key)) throw new Error(`bad label name "${key}" in: ${line}`);
    if (body[eq + 1] !== '"') throw new Error(`label value must be quoted in: ${line}`);
    let j = eq + 2;
    let value = "";
    for (; j < body.length && body[j] !== '"'; j++) {
      if (body[j] === "\\") {
        const next = body[++j];
        value += next === "n" ? "\n" : next;
      } else value += body[j];
    }
    if (body[j] !== '"') throw new Error(`unterminated label value in: ${line}`);
    if (key in labels) throw new Error(`duplicate label "${key}" in: ${line}`);
    labels[key] = value;
    i = j + 1;
    if (body[i] === ",") i++;
    else if (i < body.length) throw new Error(`expected "," between labels in: ${line}`);
  }
  return labels;
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  if (families.has(sample)) return families.get(sample);
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (sample.endsWith(suffix)) {
      const f = families.get(sample.slice(0, -suffix.length));
      if (f && (f.type === "histogram" || f.type === "summary")) return f;
    }
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) continue; // plain comment
      const [, what, name, rest] = m;
      if (!NAME.test(name!)) throw new Error(`bad metric name in: ${line}`);
      const f = families.get(name!) ?? { name: name!, type: "untyped", help: "", samples: [] };
      if (what === "TYPE") {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest!)) throw new Error(`bad type in: ${line}`);
        f.type = rest!;
      } else f.help = rest!;
      families.set(name!, f);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
    if (!m) throw new Error(`malformed sample line: ${line}`);
    const family = familyOf(m[1]!, families);
    if (!family) throw new Error(`sample before its # TYPE: ${line}`);
    family.samples.push({ name: m[1]!, labels: m[3] ? parseLabels(m[3], line) : {}, value: parseValue(m[4]!, line) });
  }
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

/** Buckets cumulative and non-decreasing by le, +Inf equal to _count, per label set. */
function checkHistogram(f: Family): void {
  const key = (l: Record<string, string>) =>
    JSON.stringify(
      Object.entries(l)
        .filter(([k]) => k !== "le")
        .sort(),
    );
  const groups = new Map<string, Sample[]>();
  for (const s of f.samples.filter((x) => x.name === `${f.name}_bucket`))
    groups.set(key(s.labels), [...(groups.get(key(s.labels)) ?? []), s]);
  for (const [k, buckets] of groups) {
    const sorted = [...buckets].sort((a, b) => parseValue(a.labels.le!, "") - parseValue(b.labels.le!, ""));
    sorted.forEach((b, i) => {
      if (i > 0 && b.value < sorted[i - 1]!.value) throw new Error(`${f.name}${k}: bucket counts decrease at le=${b.labels.le}`);
    });
    const inf = sorted.at(-1)!;
    if (inf.labels.le !== "+Inf") throw new Error(`${f.name}${k}: no +Inf bucket`);
    const count = f.samples.find((s) => s.name === `${f.name}_count` && key(s.labels) === k);
    if (!count || count.value !== inf.value) throw new Error(`${f.name}${k}: _count differs from the +Inf bucket`);
  }
}
