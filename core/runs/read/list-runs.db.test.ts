// The runs list: running and zombie first, then the rest newest first; keyset pages that neither skip nor
// repeat; a run in both phases (it finished between the two statements) listed once; the cancel stage a
// run has reached travels with its row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../../test/db";
import { insertRun, insertSchedule } from "../../../test/run-fixtures";
import { listRuns } from "./list-runs";
import { recordRunEvent } from "../record-run-event";

const db = useTestDatabase("list_runs");
let pool: pg.Pool;
let scheduleId: string;
const ids: Record<string, string> = {};

async function setState(runId: string, state: string, extra = ""): Promise<void> {
  await pool.query(
    `UPDATE runs SET state = $2, started_at = CASE WHEN $2 <> 'queued' THEN planned_at END,
            finished_at = CASE WHEN $2 IN ('succeeded', 'failed', 'cancelled') THEN planned_at + interval '1 second' END ${extra}
      WHERE id = $1`,
    [runId, state],
  );
}

beforeAll(async () => {
  pool = testPool(db.url, 2);
  scheduleId = await insertSchedule(pool, { handler: "demo.sleep" });
  // Oldest first: planned 6, 5, … 1 minutes ago.
  const plan = ["succeeded-old", "running", "failed", "zombie", "cancelling", "succeeded-new"];
  for (const [i, name] of plan.entries()) {
    ids[name] = await insertRun(pool, scheduleId, { inMs: -(plan.length - i) * 60_000 });
  }
  await setState(ids["succeeded-old"]!, "succeeded");
  await setState(ids.running!, "running");
  await setState(ids.failed!, "failed");
  await setState(ids.zombie!, "zombie");
  await setState(
    ids.cancelling!,
    "running",
    ", cancel_requested_at = clock_timestamp(), cancel_requested_by = 'user:ops@example.com', cancel_reason = 'stuck'",
  );
  await setState(ids["succeeded-new"]!, "succeeded");
  await recordRunEvent(pool, { runId: ids.cancelling!, type: "cancel_requested", message: "requested" });
  await recordRunEvent(pool, { runId: ids.cancelling!, type: "abort_sent", message: "abort signal sent" });
});

afterAll(async () => {
  await pool.end();
});

describe("listRuns", () => {
  it("puts running and zombie runs first, then the rest newest first", async () => {
    const page = await listRuns(pool, { scheduleId });
    expect(page.runs.map((r) => r.id)).toEqual([
      ids.cancelling,
      ids.zombie,
      ids.running,
      ids["succeeded-new"],
      ids.failed,
      ids["succeeded-old"],
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it("carries the newest event of a run whose cancel is in flight, and nothing for the others", async () => {
    const { runs } = await listRuns(pool, { scheduleId });
    expect(runs.find((r) => r.id === ids.cancelling)?.lastEventType).toBe("abort_sent");
    expect(runs.filter((r) => r.lastEventType !== null)).toHaveLength(1);
  });

  it("pages by cursor across both phases without skipping or repeating a row", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await listRuns(pool, { scheduleId, limit: 2, cursor });
      seen.push(...page.runs.map((r) => r.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it("lists a run once when it finishes between the attention phase and the rest", async () => {
    // The run ends right after the phase-0 statement for `running` read it as running (phase 0 is one statement per
    // attention state: running, then zombie), so the phase-1 statement sees it too.
    const run = ids.running!;
    let statements = 0;
    const racing = {
      query: async (text: string, values?: unknown[]) => {
        const result = await pool.query(text, values);
        if (++statements === 1) await setState(run, "succeeded");
        return result;
      },
    } as unknown as pg.Pool;
    try {
      const { runs } = await listRuns(racing, { scheduleId, limit: 50 });
      expect(statements).toBe(3);
      expect(runs.filter((r) => r.id === run)).toHaveLength(1);
      expect(runs).toHaveLength(6);
    } finally {
      await setState(run, "running");
    }
  });

  it("filters by state (one phase, newest first) and refuses a cursor it did not issue", async () => {
    const page = await listRuns(pool, { scheduleId, states: ["succeeded"] });
    expect(page.runs.map((r) => r.id)).toEqual([ids["succeeded-new"], ids["succeeded-old"]]);
    await expect(listRuns(pool, { scheduleId, cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "invalid_cursor" });
  });
});
