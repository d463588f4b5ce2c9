// Teams over every API route, table-driven from the route tree: a user who is operator of team A and viewer of team B
// (and holds nothing in team C), and an API token of that user bound to team A, get exactly the answer their team
// roles allow — for A's, B's and C's objects on every route that names a team object (apiRoute's `object`), and in
// every list. A route that names no team object must be listed below with why; a new route that is neither fails here.
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { callRoute } from "./call-route";
import { getPool } from "../core/db/pool";
import { createSession } from "../core/auth/sessions";
import { sha256Hex } from "../core/auth/authenticate";
import { discoverEndpoints, MUTATING, type Endpoint } from "./api-endpoints";
import type { RouteSpec } from "../app/api/_lib/api-route";
import type { TeamObjectKind } from "../core/teams/object-team";
import { teamRoleAllows, type TeamNeed } from "../core/teams/team-access";
import type { TeamRole } from "../core/teams/team-roles";

useTestDatabase("team_access");

// Routes that name no team object, by why. Lists are checked below for what they show; the others are about the
// installation or the caller's own account (admin-only ones answer the operator 403 whatever the team).
const NO_TEAM_OBJECT: Record<string, string> = {
  "GET /api/health": "public",
  "POST /api/auth/login": "public",
  "GET /api/auth/oidc/login": "public",
  "GET /api/auth/oidc/callback": "public",
  "POST /api/hooks/[id]": "public: the trigger URL's own secret",
  "GET /api/openapi.json": "public: the contract",
  "POST /api/auth/logout": "own account",
  "GET /api/auth/me": "own account",
  "GET /api/auth/sessions": "own account",
  "DELETE /api/auth/sessions/[id]": "own account",
  "GET /api/users": "installation (global admin)",
  "POST /api/users": "installation (global admin)",
  "PATCH /api/users/[id]": "installation (global admin)",
  "DELETE /api/users/[id]/sessions": "installation (global admin)",
  "GET /api/tokens": "installation (global admin)",
  "POST /api/tokens": "installation (global admin)",
  "DELETE /api/tokens/[id]": "installation (global admin)",
  "GET /api/retention": "installation",
  "GET /api/handlers": "installation: the workers' handlers",
  "GET /api/workers": "installation: the workers",
  "GET /api/metrics": "installation: fleet metrics",
  "GET /api/metrics/summary": "installation: queue summary",
  "GET /api/alerts/settings": "installation: alert settings",
  "GET /api/changes": "topic names only; what a tab reads next is filtered",
  "GET /api/audit/verify": "the chain verifies as one",
  "POST /api/audit/verify": "the chain verifies as one",
  "POST /api/schedules/preview": "an unsaved trigger",
  "POST /api/schedules": "creates in the caller's team (checked below)",
  "POST /api/calendars": "creates in the caller's team",
  "POST /api/calendars/import": "creates in the caller's team",
  "POST /api/schedules/apply": "sees only the caller's operator teams (core/schedules/as-code/apply-schedules.ts)",
  "GET /api/schedules/maintenance": "installation-wide windows",
  "POST /api/schedules/maintenance": "refused when it covers a team the caller does not operate",
  "POST /api/runs/bulk": "only the caller's operator teams' runs",
  "POST /api/load-forecast/spread": "moves only the caller's operator teams' schedules",
  "POST /api/alert-channels": "creates in a team where the caller is admin (team field)",
  "GET /api/secrets": "list, checked below",
  "GET /api/schedules": "list, checked below",
  "GET /api/schedules/export": "list, checked below",
  "GET /api/runs": "list, checked below",
  "GET /api/alerts": "list, checked below",
  "GET /api/alerts/summary": "counts of the caller's teams",
  "GET /api/audit": "list, checked below",
  "GET /api/audit/export.csv": "list, like GET /api/audit",
  "GET /api/calendars": "list, checked below",
  "GET /api/groups": "list, checked below",
  "GET /api/alert-channels": "list, checked below",
  "GET /api/timeline": "list, checked below",
  "GET /api/overview": "counts of the caller's teams",
  "GET /api/load-forecast": "fleet curve; group names of the caller's teams",
  "GET /api/teams": "the caller's teams",
  "POST /api/teams": "installation (global admin)",
};

type Objects = Record<TeamObjectKind, string> & { scheduleName: string; calendarName: string };
const teams: Record<"A" | "B" | "C", string> = { A: "", B: "", C: "" };
let endpoints: Endpoint[] = [];
let cookie = "";
let token = "";

const q = (sql: string, params: unknown[] = []) => getPool().query(sql, params);

/** One of each team object in the team, fresh (a DELETE that is allowed removes what it was given). */
async function makeObjects(team: keyof typeof teams): Promise<Objects> {
  const tag = `${team.toLowerCase()}-${crypto.randomBytes(4).toString("hex")}`;
  const teamId = teams[team];
  const group = `grp-${tag}`;
  await q(`INSERT INTO concurrency_groups (name, max_running, team_id) VALUES ($1, 1, $2)`, [group, teamId]);
  const { rows: s } = await q(
    `INSERT INTO schedules (name, handler, payload, trigger, team_id) VALUES ($1, 'demo.noop', '{}', '{"kind":"interval","everySeconds":3600}', $2) RETURNING id`,
    [`sched-${tag}`, teamId],
  );
  const scheduleId = s[0].id as string;
  const { rows: r } = await q(
    `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, payload, timeout_seconds, grace_seconds, max_attempts)
     SELECT id, 'manual', clock_timestamp() - interval '1 minute', clock_timestamp() - interval '1 minute', 'manual:' || id || ':' || gen_random_uuid(),
            'failed', handler, payload, timeout_seconds, grace_seconds, 1 FROM schedules WHERE id = $1 RETURNING id`,
    [scheduleId],
  );
  const { rows: a } = await q(
    `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message) VALUES ('missed', $1, $2, 'warning', 'test alert') RETURNING id`,
    [scheduleId, `test:${tag}`],
  );
  const { rows: c } = await q(
    `INSERT INTO calendars (name, timezone, rules, created_by, team_id) VALUES ($1, 'UTC', '{"dates":[],"weekdays":[],"windows":[],"ranges":[]}', 'test', $2) RETURNING id`,
    [`cal-${tag}`, teamId],
  );
  const secret = `SECRET_${tag.replace(/-/g, "_").toUpperCase()}`;
  await q(
    `INSERT INTO secrets (name, ciphertext, iv, auth_tag, key_id, created_by, updated_by, team_id) VALUES ($1, '\\x00', '\\x00', '\\x00', 'k', 't', 't', $2)`,
    [secret, teamId],
  );
  const { rows: ch } = await q(
    `INSERT INTO alert_channels (name, type, created_by, updated_by, team_id) VALUES ($1, 'webhook', 't', 't', $2) RETURNING id`,
    [`chan-${tag}`, teamId],
  );
  return {
    team: teamId,
    schedule: scheduleId,
    run: r[0].id,
    alert: a[0].id,
    calendar: c[0].id,
    secret,
    alert_channel: ch[0].id,
    concurrency_group: group,
    scheduleName: `sched-${tag}`,
    calendarName: `cal-${tag}`,
  };
}

function call(e: Endpoint, o: Objects, who: { cookie?: string; token?: string }) {
  const spec = (e.handler as { spec?: RouteSpec }).spec!;
  const object = spec.object!;
  const params = { ...e.params };
  let path = e.path;
  if (object.param) {
    path = path.replace(params[object.param]!, o[object.kind]);
    params[object.param] = o[object.kind];
  }
  // Other path parameters (a trigger URL's or silence's id) stay made-up: the team check comes first.
  if (object.query) path = `${path}?${object.query}=${o[object.kind]}`;
  return callRoute(e.handler, {
    method: e.method,
    path,
    params,
    ...who,
    body: MUTATING.has(e.method) ? {} : undefined,
    headers: MUTATING.has(e.method) ? { origin: "http://localhost:3000" } : {},
  });
}

type Expect = "allowed" | 403 | 404;
/**
 * 404 is the team check's only when it names the object (NotFoundError "Schedule <id> does not exist"); a 404 about
 * another part of the path (a made-up trigger URL or silence id) comes after the team check passed.
 */
function verdict(res: { status: number; body: { error?: { message?: string } } }, key: string): Expect | string {
  const status = res.status;
  if (status === 404 && !res.body?.error?.message?.includes(key)) return "allowed";
  if (status === 403 || status === 404) return status;
  if (status === 401 || status >= 500) return `unexpected ${status}`;
  return "allowed";
}

describe("team access over every API route", () => {
  beforeAll(async () => {
    endpoints = await discoverEndpoints();
    for (const t of ["A", "B", "C"] as const) {
      const { rows } = await q(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`team-${t.toLowerCase()}`]);
      teams[t] = rows[0].id;
    }
    // Not an admin: its role comes from its teams (users.role is the default team's, which it is not a member of).
    const { rows: u } = await q(`INSERT INTO users (email, password_hash, role) VALUES ('ops-a@vigil.test', 'x', 'operator') RETURNING id`);
    const userId = u[0].id as string;
    await q(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $3, 'operator'), ($2, $3, 'viewer')`, [
      teams.A,
      teams.B,
      userId,
    ]);
    cookie = (await createSession(getPool(), userId, { ip: "127.0.0.1", userAgent: "vitest" })).token;
    token = `vgl_test_${crypto.randomBytes(16).toString("hex")}`;
    await q(`INSERT INTO api_tokens (name, token_hash, prefix, role, created_by, team_id) VALUES ('team-a', $1, $2, 'operator', $3, $4)`, [
      sha256Hex(token),
      token.slice(0, 12),
      userId,
      teams.A,
    ]);
  });

  it("knows every route: it names a team object, or it is listed with why not", () => {
    const unknown = endpoints
      .filter((e) => !(e.handler as { spec?: RouteSpec }).spec?.object && !(e.key in NO_TEAM_OBJECT))
      .map((e) => e.key);
    expect(unknown).toEqual([]);
    const stale = Object.keys(NO_TEAM_OBJECT).filter((k) => !endpoints.some((e) => e.key === k));
    expect(stale).toEqual([]);
    expect(endpoints.filter((e) => (e.handler as { spec?: RouteSpec }).spec?.object).length).toBeGreaterThan(30);
  });

  it("answers the operator of A and viewer of B (and its A-bound token) exactly what their team roles allow", async () => {
    const wrong: string[] = [];
    for (const e of endpoints) {
      const spec = (e.handler as { spec?: RouteSpec }).spec!;
      if (!spec.object) continue;
      const need = spec.object.need ?? (spec.access as TeamNeed);
      // Global-admin routes refuse the operator at the route, whatever the team (no existence leaks either way).
      const want = (role: TeamRole | null): Expect =>
        spec.access === "admin" ? 403 : role === null ? 404 : teamRoleAllows(role, need) ? "allowed" : 403;
      const user = { A: want("operator"), B: want("viewer"), C: want(null) };
      const tok = { A: want("operator"), B: want(null), C: want(null) };
      for (const t of ["A", "B", "C"] as const) {
        const mine = await makeObjects(t);
        const got = verdict(await call(e, mine, { cookie }), mine[spec.object.kind]);
        if (got !== user[t]) wrong.push(`user  ${e.key} on ${t}'s: ${got}, want ${user[t]}`);
        const other = await makeObjects(t);
        const gotT = verdict(await call(e, other, { token }), other[spec.object.kind]);
        if (gotT !== tok[t]) wrong.push(`token ${e.key} on ${t}'s: ${gotT}, want ${tok[t]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists only the caller's teams' objects (the token only A's)", async () => {
    const o = { A: await makeObjects("A"), B: await makeObjects("B"), C: await makeObjects("C") };
    const get = async (route: string, path: string, who: { cookie?: string; token?: string }) => {
      const e = endpoints.find((x) => x.key === `GET ${route}`)!;
      const res = await callRoute(e.handler, { method: "GET", path, ...who });
      expect(res.status, `${route}`).toBe(200);
      return JSON.stringify(res.body);
    };
    const cases: [string, string, (x: Objects) => string][] = [
      ["/api/schedules", "/api/schedules?limit=500", (x) => x.scheduleName],
      ["/api/runs", "/api/runs?limit=500", (x) => x.run],
      ["/api/alerts", "/api/alerts?limit=500", (x) => x.alert],
      ["/api/calendars", "/api/calendars", (x) => x.calendarName],
      ["/api/groups", "/api/groups", (x) => x.concurrency_group],
      ["/api/alert-channels", "/api/alert-channels", (x) => x.alert_channel],
      ["/api/schedules/export", "/api/schedules/export?format=json", (x) => x.scheduleName],
      ["/api/timeline", "/api/timeline?laneLimit=200", (x) => x.scheduleName],
    ];
    for (const [route, path, key] of cases) {
      const byUser = await get(route, path, { cookie });
      expect([byUser.includes(key(o.A)), byUser.includes(key(o.B)), byUser.includes(key(o.C))], `${route} by the user`).toEqual([
        true,
        true,
        false,
      ]);
      const byToken = await get(route, path, { token });
      expect([byToken.includes(key(o.A)), byToken.includes(key(o.B)), byToken.includes(key(o.C))], `${route} by the token`).toEqual([
        true,
        false,
        false,
      ]);
    }
    // ?team= narrows to one of the caller's teams; another team's id shows nothing.
    const onlyB = await get("/api/schedules", `/api/schedules?limit=500&team=${teams.B}`, { cookie });
    expect([onlyB.includes(o.A.scheduleName), onlyB.includes(o.B.scheduleName)]).toEqual([false, true]);
    const foreign = await get("/api/schedules", `/api/schedules?limit=500&team=${teams.C}`, { cookie });
    expect(foreign.includes(o.C.scheduleName)).toBe(false);
    for (const [route, path, key] of cases.filter(([r]) => ["/api/calendars", "/api/groups", "/api/alert-channels"].includes(r))) {
      const narrowed = await get(route, `${path}?team=${teams.B}`, { cookie });
      expect([narrowed.includes(key(o.A)), narrowed.includes(key(o.B))], `${route}?team=B`).toEqual([false, true]);
      const other = await get(route, `${path}?team=${teams.C}`, { cookie });
      expect([other.includes(key(o.A)), other.includes(key(o.C))], `${route}?team=C`).toEqual([false, false]);
    }
  });

  it("narrows a bulk action to the picked team (the console's switcher); groups and a run answer their team", async () => {
    const o = { A: await makeObjects("A"), B: await makeObjects("B") };
    const bulk = endpoints.find((x) => x.key === "POST /api/runs/bulk")!;
    const hour = 3_600_000;
    const dry = async (team?: string) => {
      const body = {
        action: "rerun",
        dryRun: true,
        from: new Date(Date.now() - hour).toISOString(),
        to: new Date(Date.now() + hour).toISOString(),
        ...(team ? { team } : {}),
      };
      const res = await callRoute(bulk.handler, {
        method: "POST",
        path: "/api/runs/bulk",
        body,
        cookie,
        headers: { origin: "http://localhost:3000" },
      });
      expect(res.status).toBe(200);
      return res.body.runIds as string[];
    };
    expect(await dry()).toContain(o.A.run);
    expect(await dry(teams.A)).toContain(o.A.run);
    // B is a team it only views, C one it is not in: picking either leaves nothing to act on, not A's runs.
    expect(await dry(teams.B)).toEqual([]);
    expect(await dry(teams.C)).toEqual([]);

    const groups = endpoints.find((x) => x.key === "GET /api/groups")!;
    const g = await callRoute(groups.handler, { method: "GET", path: "/api/groups", cookie });
    const mine = (g.body.groups as { name: string; teamId: string; team: string }[]).find((x) => x.name === o.B.concurrency_group);
    expect(mine).toMatchObject({ teamId: teams.B, team: "team-b" });
    const run = endpoints.find((x) => x.key === "GET /api/runs/[id]")!;
    const r = await callRoute(run.handler, { method: "GET", path: `/api/runs/${o.A.run}`, params: { id: o.A.run }, cookie });
    expect(r.body.run).toMatchObject({ teamId: teams.A, team: "team-a" });
  });

  it("shows the audit trail of the caller's teams only", async () => {
    const o = { A: await makeObjects("A"), C: await makeObjects("C") };
    await q(
      `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id) VALUES ('system', 'test', 'schedule.edit', 'schedule', $1), ('system', 'test', 'schedule.edit', 'schedule', $2), ('system', 'test', 'user.create', 'user', $3)`,
      [o.A.schedule, o.C.schedule, crypto.randomUUID()],
    );
    const e = endpoints.find((x) => x.key === "GET /api/audit")!;
    const res = await callRoute(e.handler, { method: "GET", path: "/api/audit?limit=100", cookie });
    expect(res.status).toBe(200);
    const targets = (res.body.events as { targetType: string; targetId: string }[]).map((x) => x.targetId);
    expect(targets).toContain(o.A.schedule);
    expect(targets).not.toContain(o.C.schedule);
    expect((res.body.events as { targetType: string }[]).some((x) => x.targetType === "user")).toBe(false);
  });

  it("creates in the caller's team, refuses a team it does not operate, and a reference to another team's secret", async () => {
    const e = endpoints.find((x) => x.key === "POST /api/schedules")!;
    const o = { A: await makeObjects("A"), B: await makeObjects("B") };
    const post = (body: unknown, who: { cookie?: string; token?: string }) =>
      callRoute(e.handler, { method: "POST", path: "/api/schedules", body, ...who, headers: { origin: "http://localhost:3000" } });
    const base = { handler: "demo.noop", trigger: { kind: "interval", everySeconds: 3600 } };
    // In two teams where it operates one: must it say? It operates only A, so A is the default.
    const made = await post({ ...base, name: `mine-${crypto.randomBytes(3).toString("hex")}` }, { cookie });
    expect(made.status).toBe(200);
    expect(made.body.schedule.team).toBe("team-a");
    const inB = await post({ ...base, name: `in-b-${crypto.randomBytes(3).toString("hex")}`, team: "team-b" }, { cookie });
    expect(inB.status).toBe(403);
    const inC = await post({ ...base, name: `in-c-${crypto.randomBytes(3).toString("hex")}`, team: "team-c" }, { cookie });
    expect([inC.status, inC.body.error.code]).toEqual([422, "unknown_team"]);
    const crossRef = await post(
      { ...base, handler: "demo.noop", name: `x-${crypto.randomBytes(3).toString("hex")}`, concurrencyGroup: o.B.concurrency_group },
      { cookie },
    );
    expect([crossRef.status, crossRef.body.error.code]).toEqual([422, "cross_team_reference"]);
    expect(crossRef.body.error.message).toContain("team-b");
    // Nor may it run after another team's schedule (run-after chains stay inside a team).
    const chained = await post(
      {
        ...base,
        name: `z-${crypto.randomBytes(3).toString("hex")}`,
        after: [{ schedule: o.B.schedule, condition: "succeeded", mapping: "same_time" }],
      },
      { cookie },
    );
    expect([chained.status, chained.body.error.code]).toEqual([422, "cross_team_reference"]);
    expect(chained.body.error.fields).toHaveProperty(["after.0.schedule"]);
    // Shared by its owner team, the group may be used.
    await q(
      `INSERT INTO team_shares (owner_team_id, kind, object_key, shared_with_team_id, created_by) VALUES ($1, 'concurrency_group', $2, $3, 't')`,
      [teams.B, o.B.concurrency_group, teams.A],
    );
    const shared = await post(
      { ...base, name: `y-${crypto.randomBytes(3).toString("hex")}`, concurrencyGroup: o.B.concurrency_group },
      { cookie },
    );
    expect(shared.status).toBe(200);
    void o.A;
  });
  it("lets the global admin create a team and a team's admin set its members (audited); lists the caller's teams", async () => {
    const adminToken = `vgl_test_${crypto.randomBytes(16).toString("hex")}`;
    await q(`INSERT INTO api_tokens (name, token_hash, prefix, role) VALUES ('root', $1, $2, 'admin')`, [
      sha256Hex(adminToken),
      adminToken.slice(0, 12),
    ]);
    const teamsRoute = endpoints.find((x) => x.key === "POST /api/teams")!;
    const made = await callRoute(teamsRoute.handler, { method: "POST", path: "/api/teams", token: adminToken, body: { name: "team-d" } });
    expect(made.status).toBe(200);
    const d = made.body.team.id as string;
    const members = endpoints.find((x) => x.key === "PUT /api/teams/[id]/members")!;
    const put = (who: { token?: string; cookie?: string }, body: unknown) =>
      callRoute(members.handler, {
        method: "PUT",
        path: `/api/teams/${d}/members`,
        params: { id: d },
        body,
        ...who,
        headers: { origin: "http://localhost:3000" },
      });
    // Not a member of D yet: D does not exist for the user.
    expect((await put({ cookie }, { email: "ops-a@vigil.test", role: "viewer" })).status).toBe(404);
    const set = await put({ token: adminToken }, { email: "ops-a@vigil.test", role: "admin" });
    expect(set.status).toBe(200);
    expect(set.body.members).toEqual([expect.objectContaining({ email: "ops-a@vigil.test", role: "admin", source: "manual" })]);
    // Now D's admin, the user manages D's members itself.
    expect((await put({ cookie }, { email: "ops-a@vigil.test", role: "operator" })).status).toBe(200);
    const { rows } = await q(`SELECT action FROM audit_events WHERE target_type = 'team' AND target_id = $1 ORDER BY id`, [d]);
    expect(rows.map((r) => r.action)).toEqual(["team.create", "team.member_set", "team.member_set"]);
    const list = endpoints.find((x) => x.key === "GET /api/teams")!;
    const mine = await callRoute(list.handler, { method: "GET", path: "/api/teams", cookie });
    expect(mine.body.teams.map((t: { name: string; yourRole: string }) => `${t.name}:${t.yourRole}`)).toEqual([
      "team-a:operator",
      "team-b:viewer",
      "team-d:operator",
    ]);
  });
});
