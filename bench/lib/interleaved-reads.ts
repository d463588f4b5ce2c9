// The console's polled reads at two fleet sizes in one sitting (console-scale.bench.ts, CONSOLE_SCALE_INTERLEAVED=true):
// one console per database, each read asked of both sample by sample (the order alternating), so a ratio between
// the sizes compares requests made within milliseconds of each other under the same load. Measured one size after
// the other (the bench's default) the ratio also holds whatever the shared machine's load did in between: a run at
// load 10 → 15 saw the unchanged 304 answer, one tiny query, go from 6 to 42 ms.
import http from "node:http";
import { percentile } from "./stats";

export interface ReadTarget {
  label: string;
  base: string;
  token: string;
}

export interface PairedFigures {
  p50: [number, number];
  p95: [number, number];
  bytes: [number, number];
}

/** Time to the last byte and bytes on the wire; `encoding` set: asked over node:http with that Accept-Encoding (nothing decoded). */
function timeOnce(t: ReadTarget, path: string, encoding?: "gzip" | "identity"): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${t.token}` };
    // Without a stated encoding, as fetch() asks (the bench's other reads).
    headers["accept-encoding"] = encoding ?? "gzip, deflate";
    const req = http.get(`${t.base}${path}`, { headers }, (res) => {
      let bytes = 0;
      res.on("data", (b: Buffer) => (bytes += b.length));
      res.on("end", () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - started, bytes })
          : reject(new Error(`${t.label}: GET ${path}: ${res.statusCode}`)),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/** `samples` requests to each target, alternating which goes first; two warm-up requests each are not counted. */
export async function measurePaired(
  targets: [ReadTarget, ReadTarget],
  path: string,
  samples: number,
  encoding?: "gzip" | "identity",
): Promise<PairedFigures> {
  const times: [number[], number[]] = [[], []];
  const bytes: [number, number] = [0, 0];
  for (let i = -2; i < samples; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const r = await timeOnce(targets[k]!, path, encoding);
      bytes[k] = r.bytes;
      if (i >= 0) times[k]!.push(r.ms);
    }
  }
  return {
    p50: [percentile(times[0], 50), percentile(times[1], 50)],
    p95: [percentile(times[0], 95), percentile(times[1], 95)],
    bytes,
  };
}
