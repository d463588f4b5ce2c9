import { describe, expect, it } from "vitest";
import { getPool } from "../db/pool";
import { useTestDatabase } from "../../test/db";
import { getConsoleVersion } from "../console/console-version";
import { listSchedulePage } from "./list-schedules";

useTestDatabase("list_schedule_page");

async function schedules(n: number, prefix: string, handler = "demo.noop", tags: string[] = []): Promise<string[]> {
  const { rows } = await getPool().query(
    `INSERT INTO schedules (name, handler, trigger, tags)
     SELECT $1 || lpad(i::text, 4, '0'), $3, '{"kind":"interval","everySeconds":60}', $4::text[] FROM generate_series(1, $2) i RETURNING id`,
    [prefix, n, handler, tags],
  );
  return rows.map((r) => r.id);
}

/** Inserts one run `minutesAgo` in `state`, started `latenessMs` late (null: never started). */
async function run(scheduleId: string, minutesAgo: number, state: string, latenessMs: number | null = 10): Promise<string> {
  const { rows } = await getPool().query(
    `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds, started_at, lateness_ms, finished_at)
     SELECT $1, p, p, gen_random_uuid()::text, $3, 'demo.noop', 60, 5,
            CASE WHEN $4::int IS NULL THEN NULL ELSE p + make_interval(secs => $4::int / 1000.0) END, $4::int,
            CASE WHEN $3 IN ('planned', 'queued', 'running') THEN NULL ELSE p + interval '2 seconds' END
       FROM (SELECT clock_timestamp() - make_interval(mins => $2) AS p) t RETURNING id`,
    [scheduleId, minutesAgo, state, latenessMs],
  );
  return rows[0].id;
}

describe("the schedules list pages, searches and sorts on the server", () => {
  it("pages through 120 schedules with a total, and finds by name, handler and tag", async () => {
    await schedules(120, "page-");
    await schedules(3, "other-", "http.request", ["payments"]);
    const first = await listSchedulePage(getPool(), { q: "page-", limit: 50 });
    expect(first.total).toBe(120);
    expect(first.schedules.map((s) => s.name)).toEqual(Array.from({ length: 50 }, (_, i) => `page-${String(i + 1).padStart(4, "0")}`));
    const last = await listSchedulePage(getPool(), { q: "page-", limit: 50, offset: 100 });
    expect(last.schedules).toHaveLength(20);
    expect(last.schedules[0]!.name).toBe("page-0101");
    expect((await listSchedulePage(getPool(), { q: "page-", limit: 50, offset: 500 })).total).toBe(120);
    expect((await listSchedulePage(getPool(), { q: "HTTP.REQ" })).schedules.map((s) => s.name)).toEqual([
      "other-0001",
      "other-0002",
      "other-0003",
    ]);
    const tagged = await listSchedulePage(getPool(), { tags: ["payments"] });
    expect(tagged.total).toBe(3);
    expect(tagged.schedules[0]!.tags).toEqual(["payments"]);
    const desc = await listSchedulePage(getPool(), { q: "page-", desc: true, limit: 2 });
    expect(desc.schedules.map((s) => s.name)).toEqual(["page-0120", "page-0119"]);
  });

  it("sorts most trouble first and worst last outcome first, from the summaries the triggers keep", async () => {
    const [calm, failing, missing] = await schedules(3, "trouble-");
    await run(calm!, 5, "succeeded");
    const f1 = await run(failing!, 5, "failed");
    await run(failing!, 6, "failed");
    await run(failing!, 7, "failed", 5000); // late too
    await run(missing!, 5, "missed", null);
    const byTrouble = await listSchedulePage(getPool(), { q: "trouble-", sort: "trouble" });
    expect(byTrouble.schedules.map((s) => s.name)).toEqual(["trouble-0002", "trouble-0003", "trouble-0001"]);
    expect(byTrouble.schedules[0]!.counts24h).toEqual({ late: 1, missed: 0, hollow: 0, failed: 3 });
    expect(byTrouble.schedules[0]!.lastRun?.state).toBe("failed");
    const byLast = await listSchedulePage(getPool(), { q: "trouble-", sort: "last_state" });
    expect(byLast.schedules.map((s) => s.lastRun?.state)).toEqual(["failed", "missed", "succeeded"]);

    // A re-run takes the run out of "failed"; it succeeding makes it the latest outcome again.
    await getPool().query(`UPDATE runs SET state = 'queued' WHERE id = $1`, [f1]);
    await getPool().query(`UPDATE runs SET state = 'succeeded' WHERE id = $1`, [f1]);
    const after = (await listSchedulePage(getPool(), { q: "trouble-0002" })).schedules[0]!;
    expect(after.counts24h.failed).toBe(2);
    expect(after.lastRun?.id).toBe(f1);
    expect(after.lastRun?.state).toBe("succeeded");
  });

  it("sorts by next fire, soonest first, schedules with none last", async () => {
    const [later, sooner, none] = await schedules(3, "next-");
    await run(later!, -30, "planned", null);
    await run(sooner!, -5, "planned", null);
    await getPool().query(`UPDATE schedules SET paused_at = clock_timestamp() WHERE id = $1`, [none]);
    const page = await listSchedulePage(getPool(), { q: "next-", sort: "next_fire" });
    expect(page.schedules.map((s) => s.name)).toEqual(["next-0002", "next-0001", "next-0003"]);
  });

  it("bumps the console version on a run's state change, not on a heartbeat", async () => {
    const [id] = await schedules(1, "version-");
    const runId = await run(id!, 1, "running");
    const v0 = await getConsoleVersion(getPool());
    await getPool().query(`UPDATE runs SET heartbeat_at = clock_timestamp() WHERE id = $1`, [runId]);
    expect((await getConsoleVersion(getPool())).split(".")[0]).toBe(v0.split(".")[0]);
    await getPool().query(`UPDATE runs SET state = 'succeeded', finished_at = clock_timestamp() WHERE id = $1`, [runId]);
    expect((await getConsoleVersion(getPool())).split(".")[0]).not.toBe(v0.split(".")[0]);
  });
});
