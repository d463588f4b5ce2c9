import { describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { PrecomputedHistogram } from "./precomputed-histogram";

describe("a histogram counted in SQL", () => {
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
    // The same label order prom-client's own Histogram writes: le, then the series' labels.
    expect(text).toContain('x_seconds_bucket{le="0.1",schedule="a"} 1');
    expect(text).toContain('x_seconds_bucket{le="1",schedule="a"} 3');
    expect(text).toContain('x_seconds_bucket{le="+Inf",schedule="a"} 4');
    expect(text).toContain('x_seconds_sum{schedule="a"} 7.5');
    expect(text).toContain('x_seconds_count{schedule="a"} 4');
  });
});
