// Every schedule series of a scrape carries the schedule's team, and a scrape by a caller who sees only some teams (a
// token bound to one) holds only those teams' schedule series; the global admin's holds every team's.
import { beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { insertRunEvent, insertRunRow } from "@/test/alert-fixtures";
import { parsePrometheusText } from "@/test/prometheus-text";
import { GET } from "./route";

const db = useTestDatabase("metrics_teams");
const teams = { A: "", B: "" };
const tokens = { admin: "", boundToA: "" };

async function scrape(bearer: string): Promise<string> {
  const res = await GET(new NextRequest("http://localhost:3000/api/metrics", { headers: { authorization: `Bearer ${bearer}` } }), {
    params: Promise.resolve({}),
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** The `team` label of each schedule's sample in the family, by schedule. */
function teamsBySchedule(text: string, family: string): Record<string, string> {
  const f = parsePrometheusText(text).get(family);
  return Object.fromEntries((f?.samples ?? []).map((s) => [s.labels.schedule!, s.labels.team!]));
}

beforeAll(async () => {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    for (const t of ["A", "B"] as const) {
      const { rows } = await c.query(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`metrics-${t.toLowerCase()}`]);
      teams[t] = rows[0].id;
      const { rows: s } = await c.query(
        `INSERT INTO schedules (name, handler, payload, trigger, team_id) VALUES ($1, 'demo.noop', '{}', '{"kind":"interval","everySeconds":3600}', $2) RETURNING id`,
        [`metrics-sched-${t.toLowerCase()}`, teams[t]],
      );
      const z = await insertRunRow(c, s[0].id, { state: "zombie", plannedAgoMs: 15_000, startedAgoMs: 14_990, finishedAgoMs: 5_000 });
      await insertRunEvent(c, z, "zombie_detected", { agoMs: 5000 });
    }
  } finally {
    await c.end();
  }
  tokens.admin = await createTestToken(db.url, "admin");
  tokens.boundToA = await createTestToken(db.url, "admin", { teamId: teams.A });
});

describe("GET /api/metrics per team", () => {
  it("labels every schedule series with its team", async () => {
    const text = await scrape(tokens.admin);
    expect(text).toContain('vigil_runs_missed_total{schedule="metrics-sched-a",team="metrics-a"} 0');
    for (const family of ["vigil_runs_missed_total", "vigil_runs_failed_total", "vigil_runs_zombie"]) {
      expect(teamsBySchedule(text, family), family).toMatchObject({ "metrics-sched-a": "metrics-a", "metrics-sched-b": "metrics-b" });
    }
  });

  it("shows a caller bound to team A only A's schedule series (the fleet totals stay)", async () => {
    const text = await scrape(tokens.boundToA);
    for (const family of ["vigil_runs_missed_total", "vigil_runs_zombie"]) {
      expect(Object.keys(teamsBySchedule(text, family)), family).toEqual(["metrics-sched-a"]);
    }
    expect(text).not.toContain("metrics-sched-b");
    expect(text).not.toContain("metrics-b");
    expect(parsePrometheusText(text).get("vigil_workers_live")).toBeDefined();
  });
});
