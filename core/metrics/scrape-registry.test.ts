import { describe, expect, it } from "vitest";
import { Counter } from "prom-client";
import { ScrapeRegistry } from "./scrape-registry";
import { parsePrometheusText } from "@/test/prometheus-text";

describe("ScrapeRegistry", () => {
  it("renders a text family exactly as prom-client renders the same counter, after prom-client's families", async () => {
    const names = ["plain", 'quote"d', "back\\slash", "new\nline"];
    const ours = new ScrapeRegistry();
    new Counter({ name: "other_total", help: "Other", registers: [ours] }).inc(2);
    ours.addTextFamily({
      name: "x_total",
      help: "Help with \\ and\nnewline",
      type: "counter",
      labelName: "schedule",
      samples: names.map((label, i) => ({ label, value: i })),
    });
    const theirs = new ScrapeRegistry();
    new Counter({ name: "other_total", help: "Other", registers: [theirs] }).inc(2);
    const c = new Counter({ name: "x_total", help: "Help with \\ and\nnewline", labelNames: ["schedule"], registers: [theirs] });
    names.forEach((schedule, i) => c.inc({ schedule }, i));
    c.inc({ schedule: "plain" }, 0);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const parsed = parsePrometheusText(await ours.metrics());
    expect(parsed.get("x_total")?.samples.map((s) => s.labels.schedule)).toEqual(names);
  });
});
