// A prom-client histogram whose buckets were counted by Postgres. The console is stateless, so each
// scrape builds its registry from aggregates over a bounded window instead of observing in-process;
// this renders those aggregates in prom-client's own histogram format.
import { Histogram } from "prom-client";

export interface HistogramSeries {
  labels: Record<string, string>;
  /** Cumulative counts, one per upper bound in `buckets` (x <= le). */
  cumulative: number[];
  count: number;
  sum: number;
}

interface Sample {
  labels: Record<string, string | number>;
  /** The series' own labels, one object per series: prom-client formats it once, not once per bucket. */
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

const NO_LABELS: Record<string, string> = {};

type HistogramObject = Awaited<ReturnType<Histogram<string>["get"]>>;

export class PrecomputedHistogram extends Histogram<string> {
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly series: HistogramSeries[];
  private readonly bounds: number[];

  constructor(opts: { name: string; help: string; labelNames: string[]; buckets: number[]; series: HistogramSeries[] }) {
    super({ name: opts.name, help: opts.help, labelNames: opts.labelNames, buckets: opts.buckets, registers: [] });
    this.metricName = opts.name;
    this.metricHelp = opts.help;
    this.series = opts.series;
    this.bounds = opts.buckets;
  }

  override async get(): Promise<HistogramObject> {
    const name = this.metricName;
    const values: Sample[] = [];
    for (const s of this.series) {
      const shared = Object.keys(s.labels).length > 0 ? s.labels : NO_LABELS;
      this.bounds.forEach((le, i) =>
        values.push({ labels: { le }, sharedLabels: shared, value: s.cumulative[i] ?? 0, metricName: `${name}_bucket` }),
      );
      values.push({ labels: { le: "+Inf" }, sharedLabels: shared, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: NO_LABELS, sharedLabels: shared, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: NO_LABELS, sharedLabels: shared, value: s.count, metricName: `${name}_count` });
    }
    // The same shape prom-client's Histogram returns (its typings omit fields the registry does not read here).
    return { name, help: this.metricHelp, type: "histogram", values, aggregator: "sum" } as unknown as HistogramObject;
  }

  /** The registry renders text from this when present; the base class would render its own (empty) state. */
  async getForPromString() {
    return this.get();
  }
}
