// Concurrent operator actions on ONE schedule (pause, resume, trigger, edit, backfill) take the schedule's row
// lock and the audit chain's lock in one order, so they queue behind each other instead of deadlocking: no 500,
// every action that answered 2xx left its audit row, the chain verifies and no occurrence has two runs.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { dbNow, getPool } from "@/core/db/pool";
import { verifyAudit } from "@/core/audit/verify-audit";
import * as schedules from "./route";
import * as one from "./[id]/route";
import * as pause from "./[id]/pause/route";
import * as resume from "./[id]/resume/route";
import * as trigger from "./[id]/trigger/route";
import * as backfill from "./[id]/backfill/route";

const db = useTestDatabase("schedule_lock_order");
let operator: string;

beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
});

const ACTION_OF: Record<string, string> = {
  pause: "schedule.pause",
  resume: "schedule.resume",
  trigger: "schedule.trigger",
  edit: "schedule.edit",
  backfill: "schedule.backfill",
};

describe("concurrent actions on one schedule", () => {
  // Three rounds: the deadlock this guards against needs an unlucky interleaving, not seen in every round.
  it.each([1, 2, 3])(
    "100 parallel pause / resume / trigger (with edits and backfills) answer no 500, keep every audit row and one run per occurrence (round %i)",
    async (round) => {
      const created = await callRoute(schedules.POST, {
        method: "POST",
        token: operator,
        path: "/api/schedules",
        body: { name: `contended-${round}`, handler: "demo.noop", payload: {}, trigger: { kind: "interval", everySeconds: 60 } },
      });
      expect(created.status).toBe(200);
      const id: string = created.body.schedule?.id ?? created.body.id;
      const { rows: rev } = await getPool().query<{ revision: number }>(`SELECT revision FROM schedules WHERE id = $1`, [id]);
      const hour = Math.floor((await dbNow()).getTime() / 3_600_000) * 3_600_000 - 86_400_000;
      const kinds = ["pause", "resume", "trigger"] as const;
      const calls = Array.from({ length: 100 }, (_, i) => {
        const kind = i % 25 === 7 ? "edit" : i % 25 === 13 ? "backfill" : kinds[i % 3]!;
        const p = { method: "POST", token: operator, params: { id } };
        const call =
          kind === "pause"
            ? callRoute(pause.POST, { ...p, body: { reason: `pause ${i}` } })
            : kind === "resume"
              ? callRoute(resume.POST, { ...p, body: {} })
              : kind === "trigger"
                ? callRoute(trigger.POST, { ...p, body: { reason: `trigger ${i}` } })
                : kind === "edit"
                  ? callRoute(one.PATCH, { ...p, method: "PATCH", body: { revision: rev[0]!.revision, description: `edit ${i}` } })
                  : callRoute(backfill.POST, {
                      ...p,
                      body: { from: new Date(hour + i * 60_000).toISOString(), to: new Date(hour + (i + 5) * 60_000).toISOString() },
                    });
        return call.then((res) => ({ kind, ...res }));
      });
      const results = await Promise.all(calls);
      const unexpected = results.filter((r) => r.status >= 500 || (r.status !== 200 && r.status !== 409));
      expect(unexpected.map((r) => `${r.kind} ${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toEqual(expect.any(String));
      expect(results.filter((r) => r.kind === "trigger" && r.status === 200).length).toBeGreaterThan(0);

      const { rows: audit } = await getPool().query<{ action: string; n: number }>(
        `SELECT action, count(*)::int AS n FROM audit_events WHERE target_id = $1 AND action <> 'schedule.create' GROUP BY action`,
        [id],
      );
      const audited = Object.fromEntries(audit.map((r) => [r.action, r.n]));
      for (const kind of Object.keys(ACTION_OF)) {
        const ok = results.filter((r) => r.kind === kind && r.status === 200).length;
        expect({ kind, audited: audited[ACTION_OF[kind]!] ?? 0 }).toEqual({ kind, audited: ok });
      }
      const { rows: manual } = await getPool().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM runs WHERE schedule_id = $1 AND kind = 'manual'`,
        [id],
      );
      expect(manual[0]!.n).toBe(results.filter((r) => r.kind === "trigger" && r.status === 200).length);
      const { rows: dup } = await getPool().query(
        `SELECT kind, planned_at, count(*)::int AS n FROM runs WHERE schedule_id = $1 AND kind <> 'manual'
        GROUP BY kind, planned_at HAVING count(*) > 1`,
        [id],
      );
      expect(dup).toEqual([]);
      expect(await verifyAudit(getPool())).toMatchObject({ ok: true, brokenId: null });
    },
    120_000,
  );
});
