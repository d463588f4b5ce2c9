// Sharing managed in the product, through the real API routes: a team's admin shares one of its calendars with another
// team (audited team.share), whose schedules may then follow it; a team's operator may not (403), a caller with no
// role in the team is told it does not exist (404); bad input names the problem; revoking (audited team.unshare)
// refuses the reference on the next save.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestSession } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import * as shares from "@/app/api/teams/[id]/shares/route";
import * as share from "@/app/api/teams/[id]/shares/[shareId]/route";
import * as schedules from "@/app/api/schedules/route";
import * as audit from "@/app/api/audit/route";
import * as overview from "@/app/api/overview/route";

const db = useTestDatabase("team_shares");
const ORIGIN = { origin: "http://localhost:3000" };

type Who = { cookie: string; userId: string; email: string };
let adminA: Who;
let operatorA: Who;
let operatorB: Who;
let globalAdmin: Who;
const team = { A: "", B: "" };
const calendar = { A: "", B: "" };

const q = (sql: string, params: unknown[] = []) => getPool().query(sql, params);

const post = (who: Who, teamId: string, body: unknown) =>
  callRoute(shares.POST, {
    method: "POST",
    path: `/api/teams/${teamId}/shares`,
    cookie: who.cookie,
    headers: ORIGIN,
    params: { id: teamId },
    body,
  });
const list = (who: Who, teamId: string) =>
  callRoute(shares.GET, { path: `/api/teams/${teamId}/shares`, cookie: who.cookie, params: { id: teamId } });
const revoke = (who: Who, teamId: string, shareId: string) =>
  callRoute(share.DELETE, {
    method: "DELETE",
    path: `/api/teams/${teamId}/shares/${shareId}`,
    cookie: who.cookie,
    headers: ORIGIN,
    params: { id: teamId, shareId },
  });
/** Team B's operator saves a schedule of team B that follows A's calendar. */
const saveFollowingA = (name: string) =>
  callRoute(schedules.POST, {
    method: "POST",
    path: "/api/schedules",
    cookie: operatorB.cookie,
    headers: ORIGIN,
    body: {
      name,
      team: team.B,
      handler: "demo.noop",
      trigger: { kind: "interval", everySeconds: 3600 },
      calendars: [{ calendar: calendar.A, policy: "skip" }],
    },
  });

async function auditActions(): Promise<{ action: string; target_id: string; after: unknown; before: unknown }[]> {
  const { rows } = await q(`SELECT action, target_id, after, before FROM audit_events WHERE action LIKE 'team.%share' ORDER BY id`);
  return rows;
}

describe("team shares (GET/POST /api/teams/:id/shares, DELETE /api/teams/:id/shares/:shareId)", () => {
  beforeAll(async () => {
    [adminA, operatorA, operatorB, globalAdmin] = await Promise.all([
      createTestSession(db.url, "operator"),
      createTestSession(db.url, "operator"),
      createTestSession(db.url, "operator"),
      createTestSession(db.url, "admin"),
    ]);
    for (const t of ["A", "B"] as const) {
      const { rows } = await q(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`share-${t.toLowerCase()}`]);
      team[t] = rows[0].id;
      const { rows: c } = await q(
        `INSERT INTO calendars (name, timezone, rules, created_by, team_id) VALUES ($1, 'UTC', '{"dates":[],"weekdays":[],"windows":[],"ranges":[]}', 'test', $2) RETURNING id`,
        [`holidays-${t.toLowerCase()}`, team[t]],
      );
      calendar[t] = c[0].id;
    }
    await q(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, 'admin'), ($1, $3, 'operator'), ($4, $5, 'operator')`, [
      team.A,
      adminA.userId,
      operatorA.userId,
      team.B,
      operatorB.userId,
    ]);
  });

  it("refuses a team's operator (403) and a caller with no role in the team (404); nothing is shared", async () => {
    const body = { kind: "calendar", object: "holidays-a", withTeam: "share-b" };
    expect((await post(operatorA, team.A, body)).status).toBe(403);
    const stranger = await post(operatorB, team.A, body);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe("not_found");
    expect((await q(`SELECT count(*)::int AS n FROM team_shares`)).rows[0].n).toBe(0);
    // Before any share, B's schedule may not follow A's calendar.
    const refused = await saveFollowingA("before-share");
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("cross_team_reference");
  });

  it("lets the team's admin share its calendar with another team, audited; the other team's schedule may then follow it", async () => {
    const res = await post(adminA, team.A, { kind: "calendar", object: "holidays-a", withTeam: "share-b" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.share).toMatchObject({
      kind: "calendar",
      objectKey: calendar.A,
      objectName: "holidays-a",
      ownerTeam: "share-a",
      sharedWithTeam: "share-b",
    });
    const audit = await auditActions();
    expect(audit).toEqual([
      expect.objectContaining({
        action: "team.share",
        target_id: team.A,
        after: expect.objectContaining({ object: "holidays-a", sharedWith: "share-b" }),
      }),
    ]);
    expect((await saveFollowingA("after-share")).status).toBe(200);
    // Given by A, received by B; A's admin is offered every other team to share with, B's operator none.
    const a = await list(adminA, team.A);
    expect(a.body.given.map((s: { objectName: string }) => s.objectName)).toEqual(["holidays-a"]);
    expect(a.body.targets.map((t: { name: string }) => t.name)).toContain("share-b");
    const b = await list(operatorB, team.B);
    expect(b.status).toBe(200);
    expect(b.body.received.map((s: { objectName: string; ownerTeam: string }) => `${s.ownerTeam}/${s.objectName}`)).toEqual([
      "share-a/holidays-a",
    ]);
    expect(b.body.targets).toEqual([]);
    expect((await list(operatorB, team.A)).status).toBe(404);
  });

  it("names the problem in bad input: unknown object, another team's object, unknown or own target team, already shared", async () => {
    const cases: [Who, unknown, number, string][] = [
      [adminA, { kind: "calendar", object: "no-such-calendar", withTeam: "share-b" }, 422, "unknown_object"],
      // B's calendar: A's admin has no role in B, so it does not exist for them.
      [adminA, { kind: "calendar", object: "holidays-b", withTeam: "share-b" }, 422, "unknown_object"],
      [globalAdmin, { kind: "calendar", object: "holidays-b", withTeam: null }, 422, "not_your_team"],
      [adminA, { kind: "calendar", object: "holidays-a", withTeam: "no-such-team" }, 422, "unknown_team"],
      [adminA, { kind: "calendar", object: "holidays-a", withTeam: "share-a" }, 422, "own_team"],
      [adminA, { kind: "calendar", object: "holidays-a", withTeam: team.B }, 409, "already_shared"],
      [adminA, { kind: "schedule", object: "holidays-a", withTeam: null }, 422, "validation_failed"],
    ];
    for (const [who, body, status, code] of cases) {
      const res = await post(who, team.A, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error.message.length).toBeGreaterThan(10);
    }
    const notYours = await post(globalAdmin, team.A, { kind: "calendar", object: "holidays-b", withTeam: null });
    expect(notYours.body.error.message).toContain("belongs to team share-b");
  });

  it("revokes a share (operator refused, audited): a NEW save referring to the calendar is refused", async () => {
    const { given } = (await list(adminA, team.A)).body;
    const id = given[0].id as string;
    expect((await revoke(operatorA, team.A, id)).status).toBe(403);
    expect((await revoke(operatorB, team.A, id)).status).toBe(404);
    const res = await revoke(adminA, team.A, id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.share.id).toBe(id);
    expect((await revoke(adminA, team.A, id)).status).toBe(404);
    const audit = await auditActions();
    expect(audit.map((a) => a.action)).toEqual(["team.share", "team.unshare"]);
    expect(audit[1]!.before).toMatchObject({ object: "holidays-a", sharedWith: "share-b" });
    const refused = await saveFollowingA("after-revoke");
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("cross_team_reference");
    expect((await list(operatorB, team.B)).body.received).toEqual([]);
  });

  it("shares with every team when withTeam is null", async () => {
    const res = await post(globalAdmin, team.A, { kind: "calendar", object: calendar.A, withTeam: null });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.share.sharedWithTeam).toBeNull();
    expect((await saveFollowingA("shared-with-all")).status).toBe(200);
  });

  it("narrows the audit trail and the overview to one of the caller's teams with ?team= (the console's team switcher)", async () => {
    const actions = async (who: Who, team: string) => {
      const res = await callRoute(audit.GET, { path: `/api/audit?team=${team}&limit=200`, cookie: who.cookie });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.events.map((e: { action: string }) => e.action) as string[];
    };
    // The share rows are team A's: its admin sees them narrowed to A; B's operator sees none narrowed to B, and
    // nothing at all when it names a team it does not belong to.
    expect(await actions(adminA, team.A)).toEqual(expect.arrayContaining(["team.share", "team.unshare"]));
    expect(await actions(operatorB, team.B)).not.toContain("team.share");
    expect(await actions(operatorB, team.A)).toEqual([]);
    const mine = await callRoute(overview.GET, { path: `/api/overview?team=${team.B}`, cookie: operatorB.cookie });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const bad = await callRoute(overview.GET, { path: `/api/overview?team=nope`, cookie: operatorB.cookie });
    expect(bad.status).toBe(400);
  });
});
