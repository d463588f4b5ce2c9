import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/db";
import { getPool } from "../../db/pool";
import { insertSchedule } from "../../../test/run-fixtures";

useTestDatabase("schedule_slot");

/** Inserts a run of `kind` at `at` with its own key and state; returns the SQLSTATE of a refusal, or null. */
async function insert(scheduleId: string, at: string, key: string, o: { kind?: string; state?: string } = {}): Promise<string | null> {
  try {
    await getPool().query(
      `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
       VALUES ($1, $2, $3, $3, $4, $5, 'demo.noop', 30, 1)`,
      [scheduleId, o.kind ?? "scheduled", at, key, o.state ?? "planned"],
    );
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? "unknown";
  }
}

describe("a scheduled fire's slot (runs_schedule_planned_key)", () => {
  it("holds one scheduled run per schedule and planned instant; manual, superseded and excluded rows hold none", async () => {
    const s = await insertSchedule(getPool(), { handler: "demo.noop" });
    const t = "2026-12-07T06:00:00.000Z";
    expect(await insert(s, t, "a")).toBeNull();
    // A second scheduled run at the same instant, under another key: refused as a duplicate of the slot.
    expect(await insert(s, t, "b")).toBe("23505");
    // Rows that hold no slot may share the instant, with each other and with the slot holder.
    expect(await insert(s, t, "m1", { kind: "manual" })).toBeNull();
    expect(await insert(s, t, "m2", { kind: "manual" })).toBeNull();
    expect(await insert(s, t, "superseded:x")).toBeNull();
    expect(await insert(s, t, "superseded:y")).toBeNull();
    expect(await insert(s, t, "e1", { state: "excluded" })).toBeNull();
    expect(await insert(s, t, "e2", { state: "excluded" })).toBeNull();
    // The holder's slot frees when it is superseded, and a new fire may take it.
    await getPool().query(`UPDATE runs SET idempotency_key = 'superseded:a' WHERE schedule_id = $1 AND idempotency_key = 'a'`, [s]);
    expect(await insert(s, t, "c")).toBeNull();
    // An excluded row taking the slot back (state no longer excluded) collides with the new holder.
    await expect(
      getPool().query(`UPDATE runs SET state = 'planned' WHERE schedule_id = $1 AND idempotency_key = 'e1'`, [s]),
    ).rejects.toMatchObject({
      code: "23505",
    });
    // Another schedule's fire at the same instant is its own slot.
    const other = await insertSchedule(getPool(), { handler: "demo.noop" });
    expect(await insert(other, t, "d")).toBeNull();
  });
});
