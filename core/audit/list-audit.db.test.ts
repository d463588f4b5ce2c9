import { describe, expect, it, beforeAll } from "vitest";
import { useTestDatabase } from "../../test/db";
import { getPool } from "../db/pool";
import { systemActor, type Actor } from "../auth/roles";
import { recordAudit } from "./record-audit";
import { AUDIT_SEARCH_TEXT, listAudit } from "./list-audit";
import { auditListQuerySchema } from "./audit-filter";
import { exportAuditCsv } from "./export-audit-csv";
import { verifyAudit } from "./verify-audit";

useTestDatabase("list_audit");
const alice: Actor = { type: "user", id: null, label: "alice@example.com", role: "operator" };
const bob: Actor = { type: "user", id: null, label: "bob@example.com", role: "operator" };

async function all(filter: Parameters<typeof listAudit>[1]) {
  const out = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listAudit(getPool(), { ...filter, cursor, limit: 3 });
    out.push(...page.events);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

describe("listing the audit trail", () => {
  beforeAll(async () => {
    const db = getPool();
    for (let i = 0; i < 10; i++) {
      await recordAudit(db, {
        actor: i % 2 ? alice : bob,
        action: i % 3 ? "schedule.pause" : "run.cancel",
        targetType: i % 3 ? "schedule" : "run",
        targetId: `t${i % 4}`,
        reason: `reason ${i}`,
      });
    }
    await recordAudit(db, {
      actor: systemActor("reaper"),
      action: "run.zombie_reaped",
      targetType: "run",
      targetId: "t9",
      reason: "100%_done \\ '; DROP TABLE audit_events; --",
    });
  });

  it("pages newest first by id without gaps or repeats", async () => {
    const rows = await all({});
    expect(rows).toHaveLength(11);
    const ids = rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(11);
  });

  it("filters by actor, action and target (type, or type:id as the schedule and run pages link)", async () => {
    expect((await all({ actor: "alice@example.com" })).every((r) => r.actor === "alice@example.com")).toBe(true);
    expect(await all({ action: "run.cancel" })).toHaveLength(4);
    expect(await all({ target: "run" })).toHaveLength(5);
    const one = await all({ target: "schedule:t1" });
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((r) => r.targetType === "schedule" && r.targetId === "t1")).toBe(true);
    expect(await all({ actor: "bob@example.com", action: "run.cancel" })).toHaveLength(2);
  });

  it("searches text literally: wildcards and quotes are just characters", async () => {
    expect((await all({ q: "REAPER" })).map((r) => r.action)).toEqual(["run.zombie_reaped"]);
    expect(await all({ q: "100%_done" })).toHaveLength(1);
    expect(await all({ q: "0%_" })).toHaveLength(1);
    expect(await all({ q: "%%%" })).toHaveLength(0);
    expect(await all({ q: "'; DROP TABLE audit_events; --" })).toHaveLength(1);
    expect(await all({ q: "schedule:t1" })).not.toHaveLength(0);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM audit_events`);
    expect(rows[0].n).toBe(11);
  });

  it("filters by a time range on the database clock", async () => {
    const rows = await all({});
    const mid = rows[5]!.at.toISOString();
    const older = await all({ to: mid });
    const newer = await all({ from: mid });
    expect(older.every((r) => r.at <= rows[5]!.at)).toBe(true);
    expect(newer.every((r) => r.at >= rows[5]!.at)).toBe(true);
    expect(new Set([...older, ...newer].map((r) => r.id)).size).toBe(11);
    expect(await all({ from: "2999-01-01T00:00:00Z" })).toHaveLength(0);
    expect(await all({ to: "2000-01-01T00:00:00Z" })).toHaveLength(0);
  });

  it("rejects unknown parameters, bad cursors, bad times and reversed ranges", () => {
    expect(auditListQuerySchema.safeParse({ sort: "id" }).success).toBe(false);
    expect(auditListQuerySchema.safeParse({ cursor: "1 OR 1=1" }).success).toBe(false);
    expect(auditListQuerySchema.safeParse({ from: "yesterday" }).success).toBe(false);
    expect(auditListQuerySchema.safeParse({ from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }).success).toBe(false);
    expect(auditListQuerySchema.safeParse({ limit: "5000" }).success).toBe(false);
    expect(auditListQuerySchema.parse({ actor: "", q: "" })).toEqual({});
  });

  it("exports the filtered set as CSV", async () => {
    let csv = "";
    for await (const chunk of exportAuditCsv(getPool(), { action: "run.cancel" })) csv += chunk;
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^id,at,actor_type,actor_id,actor,action,target_type,target_id,reason,/);
    expect(lines).toHaveLength(5);
    expect(lines.slice(1).every((l) => l.includes(",run.cancel,run,"))).toBe(true);
  });

  it("uses the trigram index for text search (the query's expression matches the migration's)", async () => {
    const c = await getPool().connect();
    try {
      await c.query("SET enable_seqscan = off");
      const { rows } = await c.query(`EXPLAIN SELECT id FROM audit_events WHERE ${AUDIT_SEARCH_TEXT} ILIKE '%reaper%'`);
      expect(rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("audit_events_search_trgm_idx");
    } finally {
      await c.query("RESET enable_seqscan");
      c.release();
    }
  });

  it("verifies an intact chain", async () => {
    expect(await verifyAudit(getPool())).toMatchObject({ ok: true, checked: 11, brokenId: null });
  });
});
