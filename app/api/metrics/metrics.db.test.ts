import { beforeAll, describe, expect, it, vi } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { insertAlertSchedule, insertRunEvent, insertRunRow, insertWorker } from "@/test/alert-fixtures";
import { parsePrometheusText, type Family } from "@/test/prometheus-text";

const db = useTestDatabase("metrics");
let token: string;
let scheduleName: string;

type Route = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function scrape(GET: Route, bearer?: string): Promise<{ status: number; type: string | null; text: string; ms: number }> {
  const started = performance.now();
  const res = await GET(
    new NextRequest("http://localhost:3000/api/metrics", { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} }),
    {
      params: Promise.resolve({}),
    },
  );
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), text, ms: performance.now() - started };
}

const sample = (f: Family | undefined, name: string, labels: Record<string, string>) =>
  f?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

beforeAll(async () => {
  token = await createTestToken(db.url, "viewer");
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const s = await insertAlertSchedule(c, { latenessMaxMs: 1000 });
    scheduleName = s.name;
    await insertRunRow(c, s.id, { state: "succeeded", plannedAgoMs: 60_000, startedAgoMs: 59_990, finishedAgoMs: 59_000, records: 3 });
    await insertRunRow(c, s.id, { state: "succeeded", plannedAgoMs: 50_000, startedAgoMs: 47_000, finishedAgoMs: 46_000, records: 1 }); // 3 s late
    await insertRunRow(c, s.id, { state: "hollow", plannedAgoMs: 40_000, startedAgoMs: 39_950, finishedAgoMs: 39_000, records: 0 });
    await insertRunRow(c, s.id, { state: "missed", plannedAgoMs: 30_000 });
    await insertRunRow(c, s.id, {
      state: "failed",
      plannedAgoMs: 20_000,
      startedAgoMs: 19_990,
      finishedAgoMs: 15_000,
      attempt: 3,
      error: "boom",
    });
    const z = await insertRunRow(c, s.id, { state: "zombie", plannedAgoMs: 15_000, startedAgoMs: 14_990, finishedAgoMs: 5_000 });
    await insertRunEvent(c, z, "zombie_detected", { agoMs: 5000 });
    await insertRunRow(c, s.id, { state: "running", plannedAgoMs: 2_000, startedAgoMs: 1_990 });
    await insertRunRow(c, s.id, { state: "queued", plannedAgoMs: 500 });
    // Enqueued ahead of its time (the planner does this for every occurrence): not queue depth.
    await insertRunRow(c, s.id, { state: "queued", plannedAgoMs: -20_000 });
    await insertWorker(c, { heartbeatAgoMs: 0, plannerLagMs: 1500 });
    await c.query(
      `INSERT INTO alerts (kind, dedupe_key, severity, message, schedule_id) VALUES ('missed', 'missed:x', 'critical', 'm', $1)`,
      [s.id],
    );
  } finally {
    await c.end();
  }
});

describe("GET /api/metrics", () => {
  it("answers 401 without a token", async () => {
    const { GET } = await import("./route");
    expect((await scrape(GET)).status).toBe(401);
  });

  it("serves Prometheus text that parses and carries every series, with the values the runs imply", async () => {
    const { GET } = await import("./route");
    const r = await scrape(GET, token);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parsePrometheusText(r.text);
    const s = { schedule: scheduleName };

    expect(m.get("vigil_runs")?.type).toBe("gauge");
    for (const [state, n] of Object.entries({ succeeded: 2, hollow: 1, missed: 1, failed: 1, zombie: 1, running: 1, queued: 1 })) {
      expect(sample(m.get("vigil_runs"), "vigil_runs", { state })).toBe(n);
    }
    // Fleet-wide families carry no schedule label (bounded cardinality).
    expect(m.get("vigil_runs")?.samples.every((x) => !("schedule" in x.labels))).toBe(true);
    // Per schedule: trouble counters (read with increase()), kept by the runs triggers; no worker folded them here.
    for (const name of ["vigil_runs_failed_total", "vigil_runs_late_total", "vigil_runs_missed_total", "vigil_runs_hollow_total"]) {
      expect(m.get(name)?.type).toBe("counter");
      expect(sample(m.get(name), name, s)).toBe(1);
    }
    expect(sample(m.get("vigil_runs_zombie"), "vigil_runs_zombie", s)).toBe(1);
    expect(sample(m.get("vigil_run_retries"), "vigil_run_retries", {})).toBe(2);
    expect(sample(m.get("vigil_runs_running"), "vigil_runs_running", {})).toBe(1);
    expect(sample(m.get("vigil_queue_depth"), "vigil_queue_depth", { source: "runs" })).toBe(1);
    expect(sample(m.get("vigil_runs_enqueued_ahead"), "vigil_runs_enqueued_ahead", {})).toBe(1);
    expect(sample(m.get("vigil_queue_depth"), "vigil_queue_depth", { source: "pgboss" })).toBe(0);
    expect(sample(m.get("vigil_workers_live"), "vigil_workers_live", {})).toBe(1);
    expect(sample(m.get("vigil_planner_lag_max_seconds"), "vigil_planner_lag_max_seconds", {})).toBe(1.5);
    expect(m.get("vigil_planner_lag_seconds")?.samples).toHaveLength(1);
    expect(sample(m.get("vigil_alerts_open"), "vigil_alerts_open", { kind: "missed", severity: "critical" })).toBe(1);
    expect(sample(m.get("vigil_alerts_open"), "vigil_alerts_open", { kind: "hollow" })).toBe(0);

    // Start lateness: 6 started runs — 10 ms, 3 s, 50 ms, 10 ms, 10 ms, 10 ms.
    const lateness = m.get("vigil_run_start_lateness_seconds");
    expect(lateness?.type).toBe("histogram");
    expect(sample(lateness, "vigil_run_start_lateness_seconds_count", {})).toBe(6);
    expect(sample(lateness, "vigil_run_start_lateness_seconds_bucket", { le: "0.01" })).toBe(4);
    expect(sample(lateness, "vigil_run_start_lateness_seconds_bucket", { le: "0.05" })).toBe(5);
    expect(sample(lateness, "vigil_run_start_lateness_seconds_bucket", { le: "2.5" })).toBe(5);
    expect(sample(lateness, "vigil_run_start_lateness_seconds_bucket", { le: "5" })).toBe(6);
    expect(sample(lateness, "vigil_run_start_lateness_seconds_sum", {})).toBeCloseTo(3.09, 2);
    // Completion gap (finished − planned) for the 5 finished runs: 1, 4, 1, 5, 10 s.
    const gap = m.get("vigil_run_completion_gap_seconds");
    expect(sample(gap, "vigil_run_completion_gap_seconds_count", {})).toBe(5);
    expect(sample(gap, "vigil_run_completion_gap_seconds_bucket", { le: "1" })).toBe(2);
    expect(sample(gap, "vigil_run_completion_gap_seconds_bucket", { le: "5" })).toBe(4);
    expect(sample(m.get("vigil_run_duration_seconds"), "vigil_run_duration_seconds_count", {})).toBe(5);
    expect(sample(m.get("vigil_metrics_scrape_duration_seconds"), "vigil_metrics_scrape_duration_seconds", {})).toBeGreaterThan(0);
    console.log(`[metrics] scrape ${Math.round(r.ms)} ms, ${r.text.length} bytes, ${m.size} families`);
  });

  it("adds per-schedule histograms only for schedules tagged metrics:detail", async () => {
    const { GET } = await import("./route");
    const before = parsePrometheusText((await scrape(GET, token)).text);
    expect(before.get("vigil_schedule_run_start_lateness_seconds")?.samples ?? []).toHaveLength(0);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`UPDATE schedules SET tags = ARRAY['metrics:detail'] WHERE name = $1`, [scheduleName]);
      const m = parsePrometheusText((await scrape(GET, token)).text);
      const s = { schedule: scheduleName };
      expect(sample(m.get("vigil_schedule_run_start_lateness_seconds"), "vigil_schedule_run_start_lateness_seconds_count", s)).toBe(6);
      expect(sample(m.get("vigil_schedule_runs"), "vigil_schedule_runs", { ...s, state: "succeeded" })).toBe(2);
    } finally {
      await c.query(`UPDATE schedules SET tags = '{}' WHERE name = $1`, [scheduleName]);
      await c.end();
    }
  });

  it("is public when VIGIL_METRICS_PUBLIC=true", async () => {
    vi.resetModules();
    process.env.VIGIL_METRICS_PUBLIC = "true";
    try {
      const { GET } = await import("./route");
      const r = await scrape(GET);
      expect(r.status).toBe(200);
      expect(() => parsePrometheusText(r.text)).not.toThrow();
    } finally {
      delete process.env.VIGIL_METRICS_PUBLIC;
      vi.resetModules();
    }
  });

  it("counts trouble per schedule as counters: a run entering trouble adds one, a run leaving it takes none away", async () => {
    const { GET } = await import("./route");
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const quiet = await insertAlertSchedule(c, {});
      const s = { schedule: scheduleName };
      // A re-run takes the failed run out of trouble; the running run then fails, and the queued one is missed.
      await c.query(
        `UPDATE runs SET state = 'queued', reruns = reruns + 1 WHERE state = 'failed' AND schedule_id = (SELECT id FROM schedules WHERE name = $1)`,
        [scheduleName],
      );
      let m = parsePrometheusText((await scrape(GET, token)).text);
      expect(sample(m.get("vigil_runs_failed_total"), "vigil_runs_failed_total", s)).toBe(1);
      await c.query(`UPDATE runs SET state = 'failed', finished_at = clock_timestamp() WHERE state = 'running'`);
      await c.query(`UPDATE runs SET state = 'missed' WHERE state = 'queued' AND reruns = 0 AND planned_at <= now()`);
      m = parsePrometheusText((await scrape(GET, token)).text);
      expect(sample(m.get("vigil_runs_failed_total"), "vigil_runs_failed_total", s)).toBe(2);
      expect(sample(m.get("vigil_runs_missed_total"), "vigil_runs_missed_total", s)).toBe(2);
      await c.query(`SELECT vigil_fleet_fold(), vigil_schedule_trouble_fold()`);
      m = parsePrometheusText((await scrape(GET, token)).text);
      expect(sample(m.get("vigil_runs_failed_total"), "vigil_runs_failed_total", s)).toBe(2);
      // A schedule without trouble has its counters at 0 (present, so Prometheus sees its first increase).
      expect(sample(m.get("vigil_runs_missed_total"), "vigil_runs_missed_total", { schedule: quiet.name })).toBe(0);
    } finally {
      await c.end();
    }
  });
});
