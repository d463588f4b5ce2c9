// A share goes with its object: when the owner team deletes a shared secret or calendar, its shares go in the same
// transaction, each audited as team.unshare with the deletion as the reason, so a secret recreated later under the
// same name is not shared with anyone, and the receiving team's schedule that referred to it is refused on its next
// save (the cross-team rule). Through the real routes.
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { createTestSession } from "@/test/auth";
import { callRoute } from "@/test/call-route";
import { getPool } from "@/core/db/pool";
import * as shares from "@/app/api/teams/[id]/shares/route";
import * as schedules from "@/app/api/schedules/route";
import * as schedule from "@/app/api/schedules/[id]/route";
import * as secret from "@/app/api/secrets/[name]/route";
import * as calendars from "@/app/api/calendars/route";
import * as calendarRoute from "@/app/api/calendars/[id]/route";

const db = useTestDatabase("team_shares_deleted");
process.env.VIGIL_SECRET_KEY = crypto.randomBytes(32).toString("base64");
const ORIGIN = { origin: "http://localhost:3000" };

type Who = { cookie: string; userId: string; email: string };
let adminA: Who;
let operatorB: Who;
const team = { A: "", B: "" };

const HOOK = "https://ledger.example/hook";
const withToken = () => ({ url: HOOK, method: "POST", headers: { authorization: { $secret: "PAY_TOKEN" } } });
const q = (sql: string, params: unknown[] = []) => getPool().query(sql, params);
const send = (
  who: Who,
  route: Parameters<typeof callRoute>[0],
  method: string,
  path: string,
  params: Record<string, string>,
  body?: unknown,
) => callRoute(route, { method, path, cookie: who.cookie, headers: ORIGIN, params, ...(body === undefined ? {} : { body }) });

const share = (kind: string, object: string, withTeam: string | null) =>
  send(adminA, shares.POST, "POST", `/api/teams/${team.A}/shares`, { id: team.A }, { kind, object, withTeam });
const putSecret = (name: string) =>
  send(adminA, secret.PUT, "PUT", `/api/secrets/${name}`, { name }, { value: "s3cret-value", access: { schedules: ["uses-token"] } });
const deleteSecret = (name: string) => send(adminA, secret.DELETE, "DELETE", `/api/secrets/${name}`, { name });
const sharesOf = async (kind: string, key: string) =>
  (await q(`SELECT shared_with_team_id FROM team_shares WHERE kind = $1 AND object_key = $2`, [kind, key])).rows;
const unshareAudit = async (key: string) =>
  (
    await q(
      `SELECT actor, target_id, before, reason FROM audit_events WHERE action = 'team.unshare' AND before->>'objectKey' = $1 ORDER BY id`,
      [key],
    )
  ).rows;

describe("a share goes with its object", () => {
  beforeAll(async () => {
    [adminA, operatorB] = await Promise.all([createTestSession(db.url, "operator"), createTestSession(db.url, "operator")]);
    for (const t of ["A", "B"] as const) {
      const { rows } = await q(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`gone-${t.toLowerCase()}`]);
      team[t] = rows[0].id;
    }
    await q(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, 'admin'), ($3, $4, 'operator')`, [
      team.A,
      adminA.userId,
      team.B,
      operatorB.userId,
    ]);
  });

  it("deleting a shared secret removes its shares, audited; recreated under the same name it is not shared", async () => {
    expect((await putSecret("PAY_TOKEN")).status).toBe(200);
    expect((await share("secret", "PAY_TOKEN", "gone-b")).status).toBe(200);
    const made = await send(
      operatorB,
      schedules.POST,
      "POST",
      "/api/schedules",
      {},
      {
        name: "uses-token",
        team: team.B,
        handler: "http.request",
        trigger: { kind: "interval", everySeconds: 3600 },
        payload: withToken(),
      },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.schedule.id as string;
    // B's schedule still refers to it: the delete is refused and the share stays.
    expect((await deleteSecret("PAY_TOKEN")).body.error?.code).toBe("secret_in_use");
    expect(await sharesOf("secret", "PAY_TOKEN")).toHaveLength(1);
    const dropped = await send(
      operatorB,
      schedule.PATCH,
      "PATCH",
      `/api/schedules/${id}`,
      { id },
      { payload: { url: HOOK }, revision: made.body.schedule.revision },
    );
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);

    const deleted = await deleteSecret("PAY_TOKEN");
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await sharesOf("secret", "PAY_TOKEN")).toEqual([]);
    expect(await unshareAudit("PAY_TOKEN")).toEqual([
      {
        actor: adminA.email,
        target_id: team.A,
        before: { kind: "secret", object: "PAY_TOKEN", objectKey: "PAY_TOKEN", sharedWith: "gone-b" },
        reason: "the secret PAY_TOKEN was deleted",
      },
    ]);

    // Recreated by its team under the same name: nobody else may use it until it is shared again.
    expect((await putSecret("PAY_TOKEN")).status).toBe(200);
    expect(await sharesOf("secret", "PAY_TOKEN")).toEqual([]);
    const again = await send(
      operatorB,
      schedule.PATCH,
      "PATCH",
      `/api/schedules/${id}`,
      { id },
      { payload: withToken(), revision: dropped.body.schedule.revision },
    );
    expect([again.status, again.body.error?.code], JSON.stringify(again.body)).toEqual([422, "cross_team_reference"]);
    expect(again.body.error.message).toContain("gone-a");
  });

  it("deleting a shared calendar removes every share of it (one team, every team), each audited", async () => {
    const rules = { timezone: "UTC", dates: [], weekdays: [], windows: [], ranges: [] };
    const create = () => send(adminA, calendars.POST, "POST", "/api/calendars", {}, { name: "closures", team: team.A, ...rules });
    const first = await create();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const id = first.body.calendar.id as string;
    expect((await share("calendar", "closures", "gone-b")).status).toBe(200);
    expect((await share("calendar", id, null)).status).toBe(200);
    const deleted = await send(adminA, calendarRoute.DELETE, "DELETE", `/api/calendars/${id}`, { id });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await sharesOf("calendar", id)).toEqual([]);
    const audit = await unshareAudit(id);
    expect(audit.map((a) => [a.before.sharedWith, a.reason])).toEqual([
      [null, "the calendar closures was deleted"],
      ["gone-b", "the calendar closures was deleted"],
    ]);
    // A new calendar of that name is a new object: not shared, so B's schedule may not follow it.
    const second = await create();
    expect(second.status).toBe(200);
    const follow = await send(
      operatorB,
      schedules.POST,
      "POST",
      "/api/schedules",
      {},
      {
        name: "follows-closures",
        team: team.B,
        handler: "demo.noop",
        trigger: { kind: "interval", everySeconds: 3600 },
        calendars: [{ calendar: second.body.calendar.id, policy: "skip" }],
      },
    );
    expect([follow.status, follow.body.error?.code]).toEqual([422, "cross_team_reference"]);
  });
});
