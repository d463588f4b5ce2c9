import { describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { PrecomputedHistogram, cumulativeFromK, negatedBounds } from "./precomputed-histogram";

describe("histograms counted in SQL", () => {
  it("turns width_bucket(-x, negated bounds) groups into cumulative le counts (x <= le)", () => {
    const bounds = [0.1, 1, 10];
    const neg = negatedBounds(bounds);
    expect(neg).toEqual([-10, -1, -0.1]);
    // k = number of negated bounds <= -x, what width_bucket returns: the number of bounds >= x.
    const k = (x: number) => neg.filter((b) => b <= -x).length;
    const xs = [0.05, 0.1, 0.5, 1, 3, 10, 50];
    const groups = new Map<number, number>();
    for (const x of xs) groups.set(k(x), (groups.get(k(x)) ?? 0) + 1);
    const rows = [...groups].map(([kk, n]) => ({ k: kk, n }));
    expect(cumulativeFromK(bounds, rows)).toEqual(bounds.map((b) => xs.filter((x) => x <= b).length));
    expect(cumulativeFromK(bounds, rows)).toEqual([2, 4, 6]);
  });

  it("renders prom-client's histogram text", async () => {
    const reg = new Registry();
    reg.registerMetric(
      new PrecomputedHistogram({
        name: "x_seconds",
        help: "x",
        labelNames: ["schedule"],
        buckets: [0.1, 1],
        series: [{ labels: { schedule: "a" }, cumulative: [1, 3], count: 4, sum: 7.5 }],
      }),
    );
    const text = await reg.metrics();
    expect(text).toContain("# TYPE x_seconds histogram");
    expect(text).toContain('x_seconds_bucket{schedule="a",le="0.1"} 1');
    expect(text).toContain('x_seconds_bucket{schedule="a",le="1"} 3');
    expect(text).toContain('x_seconds_bucket{schedule="a",le="+Inf"} 4');
    expect(text).toContain('x_seconds_sum{schedule="a"} 7.5');
    expect(text).toContain('x_seconds_count{schedule="a"} 4');
  });
});
