// Secrets and alert channels belong to a team and are managed by its admins: a team admin (not the global admin)
// creates them in its team, cannot in a team where it is viewer (403) or holds nothing (its existence not leaked), a
// team operator writes none; lists show the caller's admin teams only, with the team; audit rows name the team; a
// channel takes only its own team's alerts.
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { callRoute } from "./call-route";
import { getPool } from "../core/db/pool";
import { createSession } from "../core/auth/sessions";
import { enqueueChannelDeliveries } from "../core/alerts/channels/enqueue-channel-deliveries";
import * as secretsRoute from "../app/api/secrets/route";
import * as secretRoute from "../app/api/secrets/[name]/route";
import * as accessRoute from "../app/api/secrets/[name]/access/route";
import * as channelsRoute from "../app/api/alert-channels/route";
import * as channelRoute from "../app/api/alert-channels/[id]/route";

process.env.VIGIL_SECRET_KEY = crypto.randomBytes(32).toString("base64");

useTestDatabase("team_owned_secrets");

const q = (sql: string, params: unknown[] = []) => getPool().query(sql, params);
const teams = { A: "", B: "", C: "" };
const who = { adminA: "", opA: "", adminAC: "" };
const ORIGIN = { origin: "http://localhost:3000" };
const VALUE = `team-secret-${crypto.randomBytes(8).toString("hex")}`;

async function user(email: string, roles: [string, string][]): Promise<string> {
  const { rows } = await q(`INSERT INTO users (email, password_hash, role) VALUES ($1, 'x', 'operator') RETURNING id`, [email]);
  for (const [team, role] of roles)
    await q(`INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3)`, [team, rows[0].id, role]);
  return (await createSession(getPool(), rows[0].id, { ip: "127.0.0.1", userAgent: "vitest" })).token;
}

const putSecret = (cookie: string, name: string, body: Record<string, unknown>) =>
  callRoute(secretRoute.PUT, { method: "PUT", path: `/api/secrets/${name}`, params: { name }, body, cookie, headers: ORIGIN });
const webhook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: "webhook",
  secrets: { url: "https://hooks.example.com/x" },
  ...extra,
});
const postChannel = (cookie: string, body: unknown) =>
  callRoute(channelsRoute.POST, { method: "POST", path: "/api/alert-channels", body, cookie, headers: ORIGIN });

describe("team-owned secrets and alert channels", () => {
  beforeAll(async () => {
    for (const t of ["A", "B", "C"] as const) {
      const { rows } = await q(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`own-${t.toLowerCase()}`]);
      teams[t] = rows[0].id;
    }
    who.adminA = await user("admin-a@vigil.test", [
      [teams.A, "admin"],
      [teams.B, "viewer"],
    ]);
    who.opA = await user("op-a@vigil.test", [[teams.A, "operator"]]);
    who.adminAC = await user("admin-ac@vigil.test", [
      [teams.A, "admin"],
      [teams.C, "admin"],
    ]);
  });

  it("lets a team admin write its team's secrets and no other team's; a team operator writes none", async () => {
    const made = await putSecret(who.adminA, "OWN_A_TOKEN", { value: VALUE });
    expect(made.status).toBe(200);
    expect(made.body.secret.team).toBe("own-a");
    expect(JSON.stringify(made.body)).not.toContain(VALUE);

    const inB = await putSecret(who.adminA, "OWN_B_TOKEN", { value: VALUE, team: "own-b" });
    expect(inB.status).toBe(403);
    const inC = await putSecret(who.adminA, "OWN_C_TOKEN", { value: VALUE, team: "own-c" });
    expect([inC.status, inC.body.error.code]).toEqual([422, "unknown_team"]);
    expect(inC.body.error.message).not.toContain(teams.C);

    // B's existing secret: the viewer there is refused, someone in no role there is told it does not exist.
    await q(`UPDATE secrets SET team_id = $1 WHERE name = 'OWN_A_TOKEN'`, [teams.A]);
    const adminC = (await putSecret(who.adminAC, "OWN_AC_IN_C", { value: VALUE, team: "own-c" })).body.secret;
    expect(adminC.team).toBe("own-c");
    expect((await putSecret(who.adminA, "OWN_AC_IN_C", { value: VALUE })).status).toBe(404);
    const del = await callRoute(secretRoute.DELETE, {
      method: "DELETE",
      path: "/api/secrets/OWN_AC_IN_C",
      params: { name: "OWN_AC_IN_C" },
      cookie: who.adminA,
      headers: ORIGIN,
    });
    expect(del.status).toBe(404);
    await q(`UPDATE secrets SET team_id = $1 WHERE name = 'OWN_AC_IN_C'`, [teams.B]);
    expect((await putSecret(who.adminA, "OWN_AC_IN_C", { value: VALUE })).status).toBe(403);

    // The operator of A: not a new one, not a replaced value, not its rule.
    expect((await putSecret(who.opA, "OWN_OP_TOKEN", { value: VALUE })).status).toBe(403);
    expect((await putSecret(who.opA, "OWN_A_TOKEN", { value: VALUE })).status).toBe(403);
    const access = await callRoute(accessRoute.PUT, {
      method: "PUT",
      path: "/api/secrets/OWN_A_TOKEN/access",
      params: { name: "OWN_A_TOKEN" },
      body: { access: { schedules: ["x"] } },
      cookie: who.opA,
      headers: ORIGIN,
    });
    expect(access.status).toBe(403);

    // An admin of two teams must say which; a secret does not move between teams.
    const unsaid = await putSecret(who.adminAC, "OWN_UNSAID", { value: VALUE });
    expect([unsaid.status, unsaid.body.error.code]).toEqual([422, "team_required"]);
    expect(unsaid.body.error.message).toContain("own-a, own-c");
    const moved = await putSecret(who.adminAC, "OWN_A_TOKEN", { value: VALUE, team: "own-c" });
    expect([moved.status, moved.body.error.code]).toEqual([422, "secret_team_fixed"]);
    expect((await putSecret(who.adminAC, "OWN_A_TOKEN", { value: `${VALUE}-2`, team: "own-a" })).status).toBe(200);
  });

  it("lists the secrets of the caller's admin teams with their team, never a value; audit rows name the team", async () => {
    await putSecret(who.adminAC, "OWN_LIST_C", { value: VALUE, team: "own-c" });
    const list = async (cookie: string) =>
      (await callRoute(secretsRoute.GET, { path: "/api/secrets", cookie })).body.secrets as { name: string; team: string }[];
    const byAdminA = await list(who.adminA);
    expect(byAdminA.map((s) => s.name)).toContain("OWN_A_TOKEN");
    expect(byAdminA.map((s) => s.name)).not.toContain("OWN_LIST_C");
    expect(byAdminA.find((s) => s.name === "OWN_A_TOKEN")!.team).toBe("own-a");
    expect((await callRoute(secretsRoute.GET, { path: "/api/secrets", cookie: who.opA })).status).toBe(403);
    const byAdminAC = await list(who.adminAC);
    expect(byAdminAC.find((s) => s.name === "OWN_LIST_C")!.team).toBe("own-c");
    expect(JSON.stringify(byAdminAC)).not.toContain(VALUE);
    // ?team= (the console's team switcher) narrows within the admin teams; a team it does not admin lists nothing.
    const narrowed = async (cookie: string, team: string) =>
      (await callRoute(secretsRoute.GET, { path: `/api/secrets?team=${team}`, cookie })).body.secrets as { team: string }[];
    expect(new Set((await narrowed(who.adminAC, teams.C)).map((s) => s.team))).toEqual(new Set(["own-c"]));
    expect(await narrowed(who.adminA, teams.C)).toEqual([]);
    expect(await narrowed(who.adminA, teams.B)).toEqual([]);

    const { rows } = await q(`SELECT after FROM audit_events WHERE target_type = 'secret' AND target_id = 'OWN_LIST_C'`);
    expect(rows[0].after.team).toBe("own-c");
    expect(JSON.stringify(rows)).not.toContain(VALUE);
  });

  it("lets a team admin create channels in its team only; a channel takes only its team's alerts", async () => {
    const made = await postChannel(who.adminA, webhook("own-a-hook"));
    expect(made.status).toBe(200);
    expect(made.body.channel.team).toBe("own-a");
    const { rows: refs } = await q(`SELECT team_id FROM secrets WHERE name LIKE $1`, [
      `ALERT_CHANNEL_${made.body.channel.id.replace(/-/g, "").toUpperCase()}_%`,
    ]);
    expect(refs.map((r) => r.team_id)).toEqual([teams.A]);
    expect((await postChannel(who.adminA, webhook("own-b-hook", { team: "own-b" }))).status).toBe(403);
    expect((await postChannel(who.opA, webhook("own-op-hook"))).status).toBe(403);
    const inC = await postChannel(who.adminAC, webhook("own-c-hook", { team: "own-c" }));
    expect(inC.body.channel.team).toBe("own-c");
    // The admin of A alone does not see C's channel, and cannot change it.
    const list = await callRoute(channelsRoute.GET, { path: "/api/alert-channels", cookie: who.adminA });
    expect((list.body.channels as { name: string }[]).map((c) => c.name)).toEqual(["own-a-hook"]);
    const put = await callRoute(channelRoute.PUT, {
      method: "PUT",
      path: `/api/alert-channels/${inC.body.channel.id}`,
      params: { id: inC.body.channel.id },
      body: webhook("renamed"),
      cookie: who.adminA,
      headers: ORIGIN,
    });
    expect(put.status).toBe(404);
    const moved = await callRoute(channelRoute.PUT, {
      method: "PUT",
      path: `/api/alert-channels/${made.body.channel.id}`,
      params: { id: made.body.channel.id },
      body: webhook("own-a-hook", { team: "own-c" }),
      cookie: who.adminAC,
      headers: ORIGIN,
    });
    expect([moved.status, moved.body.error.code]).toEqual([422, "channel_team_fixed"]);

    // An alert about A's schedule goes to A's channel, not C's; one about no schedule goes to both.
    const { rows: s } = await q(
      `INSERT INTO schedules (name, handler, payload, trigger, team_id) VALUES ('own-a-sched', 'demo.noop', '{}', '{"kind":"interval","everySeconds":3600}', $1) RETURNING id`,
      [teams.A],
    );
    const { rows: a } = await q(
      `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message)
       VALUES ('missed', $1, 'own:a', 'warning', 'a'), ('no_worker', NULL, 'own:none', 'critical', 'none') RETURNING id, schedule_id`,
      [s[0].id],
    );
    await enqueueChannelDeliveries(
      getPool(),
      a.map((r) => r.id as string),
      "opened",
    );
    const { rows: d } = await q(
      `SELECT a.dedupe_key, c.name FROM alert_deliveries d JOIN alerts a ON a.id = d.alert_id JOIN alert_channels c ON c.id = d.channel_id
        WHERE a.id = ANY($1::uuid[]) ORDER BY 1, 2`,
      [a.map((r) => r.id)],
    );
    expect(d.map((r) => `${r.dedupe_key}→${r.name}`)).toEqual(["own:a→own-a-hook", "own:none→own-a-hook", "own:none→own-c-hook"]);
  });
});
