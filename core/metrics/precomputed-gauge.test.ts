import { describe, expect, it } from "vitest";
import { Gauge, Registry } from "prom-client";
import { PrecomputedGauge } from "./precomputed-gauge";

describe("a gauge computed in SQL", () => {
  it("renders the same text as prom-client's own gauge, label values escaped", async () => {
    const samples = [
      { labels: { schedule: "a" }, value: 3 },
      { labels: { schedule: 'b"\\x' }, value: 0.5 },
    ];
    const own = new Registry();
    const g = new Gauge({ name: "x_runs", help: "x", labelNames: ["schedule"], registers: [own] });
    for (const s of samples) g.set(s.labels, s.value);
    const ours = new Registry();
    ours.registerMetric(new PrecomputedGauge({ name: "x_runs", help: "x", labelNames: ["schedule"], samples }));
    expect(await ours.metrics()).toBe(await own.metrics());
    expect(await ours.metrics()).toContain('x_runs{schedule="b\\"\\\\x"} 0.5');
  });
});
