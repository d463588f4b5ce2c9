// Stage events are stamped by their age on the worker's clock; across two writes the network delay of each can
// differ, so a later stage must never be stamped before an earlier one the same worker wrote for the attempt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../test/db";
import { insertRun, insertSchedule, runEvents } from "../../test/run-fixtures";
import { recordStageEvents } from "./record-stage-events";

const db = useTestDatabase("stage_events");
let pool: pg.Pool;

beforeAll(async () => {
  pool = testPool(db.url, 2);
});

afterAll(async () => {
  await pool.end();
});

describe("recordStageEvents", () => {
  it("backdates a stage by its age, but never before a stage the same worker already wrote for the attempt", async () => {
    const runId = await insertRun(pool, await insertSchedule(pool, { handler: "demo.hang" }));
    const now = performance.now();
    await recordStageEvents(pool, runId, [{ type: "abort_sent", attempt: 1, workerId: "w1", atPerf: now }], now);
    // Written next, but its age would put it 5 s earlier (as if the first write had been delayed that long).
    await recordStageEvents(pool, runId, [{ type: "killed", attempt: 1, workerId: "w1", atPerf: now }], now + 5000);
    // Another worker's or another attempt's events are not held back by w1's.
    await recordStageEvents(pool, runId, [{ type: "terminated", attempt: 2, workerId: "w1", atPerf: now }], now + 5000);
    const events = await runEvents(pool, runId);
    const at = (type: string) => events.find((e) => e.type === type)!.at.getTime();
    expect(at("killed")).toBeGreaterThanOrEqual(at("abort_sent"));
    expect(at("terminated")).toBeLessThan(at("abort_sent") - 4000);
    expect(events.map((e) => e.type).filter((t) => t !== "terminated")).toEqual(["abort_sent", "killed"]);
  });
});
