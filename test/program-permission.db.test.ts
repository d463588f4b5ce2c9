// The program permission, attacked through the real API routes: an operator without it can neither store a
// schedule that runs a program on a worker host nor make one of its runs happen (403 program_permission_required,
// nothing stored, no audit row); an admin grants it (audited, visible in the users API) and then the same calls pass.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestSession } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import { insertRun, insertSchedule } from "@/test/run-fixtures";
import * as schedules from "@/app/api/schedules/route";
import * as schedule from "@/app/api/schedules/[id]/route";
import * as trigger from "@/app/api/schedules/[id]/trigger/route";
import * as resume from "@/app/api/schedules/[id]/resume/route";
import * as backfill from "@/app/api/schedules/[id]/backfill/route";
import * as rerun from "@/app/api/runs/[id]/rerun/route";
import * as bulk from "@/app/api/runs/bulk/route";
import * as apply from "@/app/api/schedules/apply/route";
import * as users from "@/app/api/users/route";
import * as user from "@/app/api/users/[id]/route";

const db = useTestDatabase("program_permission");
const ORIGIN = { origin: "http://localhost:3000" };

type Who = { cookie: string; userId: string; email: string };
let admin: Who;
let operator: Who;

const shellPayload = { command: ["/bin/echo", "hello"] };
const hourly = { kind: "interval", everySeconds: 3600 };

/** One fresh target per call: a shell schedule (enabled and paused) and a failed run of it. */
async function targets() {
  const pool = getPool();
  const enabled = await insertSchedule(pool, { handler: "shell.command", payload: shellPayload });
  const paused = await insertSchedule(pool, { handler: "shell.command", payload: shellPayload });
  await pool.query(`UPDATE schedules SET paused_at = now(), paused_by = 'test', pause_reason = 'test', enabled = false WHERE id = $1`, [
    paused,
  ]);
  await pool.query(`UPDATE schedules SET trigger = $2 WHERE id = $1`, [enabled, JSON.stringify(hourly)]);
  const run = await insertRun(pool, enabled);
  await pool.query(`UPDATE runs SET state = 'failed', attempt = 1, finished_at = clock_timestamp(), error = 'boom' WHERE id = $1`, [run]);
  const { rows } = await pool.query<{ revision: number; name: string }>(`SELECT revision, name FROM schedules WHERE id = $1`, [enabled]);
  return { enabled, paused, run, revision: rows[0]!.revision, name: rows[0]!.name };
}

type Target = Awaited<ReturnType<typeof targets>>;

// Every path that stores a program schedule or makes one of its runs happen.
const CASES: { what: string; call: (who: Who, t: Target) => ReturnType<typeof callRoute> }[] = [
  {
    what: "create",
    call: (w, t) =>
      callRoute(schedules.POST, {
        method: "POST",
        path: "/api/schedules",
        cookie: w.cookie,
        headers: ORIGIN,
        body: { name: `shell-${t.run.slice(0, 8)}`, handler: "shell.command", payload: shellPayload, trigger: hourly },
      }),
  },
  {
    what: "edit",
    call: (w, t) =>
      callRoute(schedule.PATCH, {
        method: "PATCH",
        path: `/api/schedules/${t.enabled}`,
        cookie: w.cookie,
        headers: ORIGIN,
        params: { id: t.enabled },
        body: { revision: t.revision, payload: { command: ["/bin/cat", "/proc/1/environ"] } },
      }),
  },
  {
    what: "trigger",
    call: (w, t) =>
      callRoute(trigger.POST, {
        method: "POST",
        path: `/api/schedules/${t.enabled}/trigger`,
        cookie: w.cookie,
        headers: ORIGIN,
        params: { id: t.enabled },
        body: { reason: "attack" },
      }),
  },
  {
    what: "resume",
    call: (w, t) =>
      callRoute(resume.POST, {
        method: "POST",
        path: `/api/schedules/${t.paused}/resume`,
        cookie: w.cookie,
        headers: ORIGIN,
        params: { id: t.paused },
        body: {},
      }),
  },
  {
    what: "backfill",
    call: (w, t) =>
      callRoute(backfill.POST, {
        method: "POST",
        path: `/api/schedules/${t.enabled}/backfill`,
        cookie: w.cookie,
        headers: ORIGIN,
        params: { id: t.enabled },
        body: {
          from: new Date(Date.now() - 3 * 3600_000).toISOString(),
          to: new Date(Date.now() - 60_000).toISOString(),
          reason: "attack",
        },
      }),
  },
  {
    what: "re-run",
    call: (w, t) =>
      callRoute(rerun.POST, {
        method: "POST",
        path: `/api/runs/${t.run}/rerun`,
        cookie: w.cookie,
        headers: ORIGIN,
        params: { id: t.run },
        body: { reason: "attack" },
      }),
  },
  {
    what: "apply",
    call: (w, t) =>
      callRoute(apply.POST, {
        method: "POST",
        path: "/api/schedules/apply",
        cookie: w.cookie,
        headers: ORIGIN,
        body: {
          document: {
            version: 1,
            schedules: { [`applied-${t.run.slice(0, 8)}`]: { handler: "shell.command", payload: shellPayload, trigger: hourly } },
          },
          source: "attack.yaml",
        },
      }),
  },
];

async function counts(t: Target) {
  const { rows } = await getPool().query(
    `SELECT (SELECT count(*) FROM schedules)::int AS schedules, (SELECT count(*) FROM runs)::int AS runs,
            (SELECT count(*) FROM audit_events)::int AS audit,
            (SELECT revision FROM schedules WHERE id = $1) AS revision,
            (SELECT paused_at IS NOT NULL FROM schedules WHERE id = $2) AS paused,
            (SELECT row(state, attempt, reruns)::text FROM runs WHERE id = $3) AS run`,
    [t.enabled, t.paused, t.run],
  );
  return rows[0]!;
}

beforeAll(async () => {
  admin = await createTestSession(db.url, "admin");
  operator = await createTestSession(db.url, "operator");
});

describe("running programs on a worker host is a permission of its own", () => {
  it.each(CASES)("an operator without it is refused: $what (403, nothing stored, no audit row)", async ({ call }) => {
    const t = await targets();
    const before = await counts(t);
    const res = await call(operator, t);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error.code).toBe("program_permission_required");
    expect(res.body.error.message).toMatch(/program permission/);
    expect(await counts(t)).toEqual(before);
    expect(before.paused).toBe(true);
  });

  it("a bulk re-run by an operator without it re-runs no program run", async () => {
    const t = await targets();
    const res = await callRoute(bulk.POST, {
      method: "POST",
      path: "/api/runs/bulk",
      cookie: operator.cookie,
      headers: ORIGIN,
      body: { action: "rerun", runIds: [t.run], reason: "attack" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([{ runId: t.run, ok: false, error: expect.objectContaining({ code: "program_permission_required" }) }]);
    const { rows } = await getPool().query(`SELECT state, reruns FROM runs WHERE id = $1`, [t.run]);
    expect(rows[0]).toEqual({ state: "failed", reruns: 0 });
  });

  it("an operator without it may still stop a program schedule: disable it in an edit", async () => {
    const t = await targets();
    const res = await callRoute(schedule.PATCH, {
      method: "PATCH",
      path: `/api/schedules/${t.enabled}`,
      cookie: operator.cookie,
      headers: ORIGIN,
      params: { id: t.enabled },
      body: { revision: t.revision, enabled: false },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.schedule?.paused ?? res.body.paused).toBeTruthy();
  });

  it("an operator still saves and triggers schedules of handlers that run no program", async () => {
    const res = await callRoute(schedules.POST, {
      method: "POST",
      path: "/api/schedules",
      cookie: operator.cookie,
      headers: ORIGIN,
      body: { name: "plain-noop", handler: "demo.noop", payload: {}, trigger: hourly },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("an operator cannot grant it to themselves; an admin grants it, audited and shown in the users API", async () => {
    const self = await callRoute(user.PATCH, {
      method: "PATCH",
      path: `/api/users/${operator.userId}`,
      cookie: operator.cookie,
      headers: ORIGIN,
      params: { id: operator.userId },
      body: { canRunPrograms: true },
    });
    expect(self.status).toBe(403);

    const listed = async () =>
      (await callRoute(users.GET, { path: "/api/users", cookie: admin.cookie })).body.users.find(
        (u: { id: string }) => u.id === operator.userId,
      );
    expect(await listed()).toMatchObject({ role: "operator", canRunPrograms: false, mayRunPrograms: false });
    const granted = await callRoute(user.PATCH, {
      method: "PATCH",
      path: `/api/users/${operator.userId}`,
      cookie: admin.cookie,
      headers: ORIGIN,
      params: { id: operator.userId },
      body: { canRunPrograms: true },
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect(await listed()).toMatchObject({ canRunPrograms: true, mayRunPrograms: true });
    const { rows } = await getPool().query(
      `SELECT actor, before, after FROM audit_events WHERE action = 'user.program_permission_grant' AND target_id = $1`,
      [operator.userId],
    );
    expect(rows).toEqual([{ actor: admin.email, before: { canRunPrograms: false }, after: { canRunPrograms: true } }]);
  });

  it.each(CASES)("the granted operator may: $what", async ({ call }) => {
    const t = await targets();
    const res = await call(operator, t);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
