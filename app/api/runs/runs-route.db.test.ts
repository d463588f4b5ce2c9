// GET /api/runs?lateness=late|on_time: the runs list filtered by core/runs/lateness.ts's rule.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import * as runsRoute from "./route";

const db = useTestDatabase("runs_route");
let token: string;
let scheduleId: string;
const run: Record<"inside" | "beyond", string> = { inside: "", beyond: "" };

beforeAll(async () => {
  token = await createTestToken(db.url, "viewer");
  const { rows } = await getPool().query(
    `INSERT INTO schedules (name, handler, trigger, start_jitter_ms) VALUES ('jittered', 'demo.noop', '{"kind":"interval","everySeconds":60}', 1000) RETURNING id`,
  );
  scheduleId = rows[0].id;
  for (const [name, minutesAgo, latenessMs] of [
    ["inside", 3, 1500],
    ["beyond", 2, 2500],
  ] as const) {
    const { rows: r } = await getPool().query(
      `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, started_at, lateness_ms, finished_at)
       SELECT $1, p, p, gen_random_uuid()::text, 'succeeded', 'demo.noop', 60, 5, p + make_interval(secs => $3::int / 1000.0), $3::int, p + interval '5 seconds'
         FROM (SELECT clock_timestamp() - make_interval(mins => $2) AS p) t
       RETURNING id`,
      [scheduleId, minutesAgo, latenessMs],
    );
    run[name] = r[0].id;
  }
});

describe("GET /api/runs?lateness=", () => {
  const get = (qs: string) => callRoute(runsRoute.GET, { token, path: `/api/runs?scheduleId=${scheduleId}&${qs}` });

  it("lists only the runs started beyond their schedule's jitter + tolerance, or only the others", async () => {
    const late = await get("lateness=late");
    expect(late.status).toBe(200);
    expect(late.body.runs.map((r: { id: string }) => r.id)).toEqual([run.beyond]);
    expect((await get("lateness=on_time")).body.runs.map((r: { id: string }) => r.id)).toEqual([run.inside]);
    expect((await get("")).body.runs).toHaveLength(2);
  });

  it("refuses anything but late or on_time with a 400 naming the field", async () => {
    const bad = await get("lateness=sometimes");
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toHaveProperty("lateness");
  });
});
