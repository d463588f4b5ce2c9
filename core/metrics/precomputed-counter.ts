// A prom-client counter whose values were counted by Postgres (the per-schedule trouble counters): handed over as a
// list, not incremented in-process (the console is stateless). Each sample's labels go in as prom-client's
// `sharedLabels`, which it formats once per label object: pass the same object for a schedule's four counters and
// its label set is escaped once per scrape, not four times (4,000 samples at 1,000 schedules).
import { Counter } from "prom-client";

export interface CounterSample {
  labels: Record<string, string>;
  value: number;
}

type CounterObject = Awaited<ReturnType<Counter<string>["get"]>>;

const NO_LABELS: Record<string, string> = {};

export class PrecomputedCounter extends Counter<string> {
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly samples: CounterSample[];

  constructor(opts: { name: string; help: string; labelNames: string[]; samples: CounterSample[] }) {
    super({ name: opts.name, help: opts.help, labelNames: opts.labelNames, registers: [] });
    this.metricName = opts.name;
    this.metricHelp = opts.help;
    this.samples = opts.samples;
  }

  override async get(): Promise<CounterObject> {
    const values = this.samples.map((s) => ({ labels: NO_LABELS, sharedLabels: s.labels, value: s.value }));
    return { name: this.metricName, help: this.metricHelp, type: "counter", values, aggregator: "sum" } as unknown as CounterObject;
  }

  /** The registry renders text from this when present; the base class would render its own (empty) state. */
  async getForPromString() {
    return this.get();
  }
}
