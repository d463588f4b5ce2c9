// A prom-client gauge whose samples were computed by Postgres: handed over as a list, not set one by one
// (prom-client's Gauge hashes every label set on set()). Renders in prom-client's own format. Used for the
// per-schedule zombie detections; the per-schedule trouble counters (thousands of samples) are rendered as text by
// scrape-registry.ts instead.
import { Gauge } from "prom-client";

export interface GaugeSample {
  labels: Record<string, string>;
  value: number;
}

type GaugeObject = Awaited<ReturnType<Gauge<string>["get"]>>;

export class PrecomputedGauge extends Gauge<string> {
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly samples: GaugeSample[];

  constructor(opts: { name: string; help: string; labelNames: string[]; samples: GaugeSample[] }) {
    super({ name: opts.name, help: opts.help, labelNames: opts.labelNames, registers: [] });
    this.metricName = opts.name;
    this.metricHelp = opts.help;
    this.samples = opts.samples;
  }

  override async get(): Promise<GaugeObject> {
    return {
      name: this.metricName,
      help: this.metricHelp,
      type: "gauge",
      values: this.samples,
      aggregator: "sum",
    } as unknown as GaugeObject;
  }

  /** The registry renders text from this when present. */
  async getForPromString() {
    return this.get();
  }
}
