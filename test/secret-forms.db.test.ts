// Secrets by permission, and redaction that holds, with a real worker. A multi-line secret with quotes,
// backslashes and non-ASCII is printed by a thread handler (raw, each line, JSON-escaped once and twice, \uXXXX,
// percent- and form-encoded, base64 and base64url, inside a Basic header, across the log line cut, in a thrown
// error, straddling the cut to its length) and by shell.command (raw, base64 across its 8 KiB line cut, on stderr across
// the error's tail cut): no form of it is in the runs' API answers, their logs and events, any table, or the
// worker's own output. A schedule may refer to a secret only if the secret's rule allows it: on save (422
// secret_not_allowed, nothing stored) and again at run time (the run fails, nothing decrypted).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { createTestToken } from "./auth";
import { callRoute } from "./call-route";
import { MAX_DESCRIPTION } from "../core/handlers/describe-thrown";
import { waitFor } from "./wait-for";
import { startWarmWorker } from "./warm-worker";
import type { TestWorker } from "./worker-process";
import { getPool } from "../core/db/pool";
import * as schedulesRoute from "../app/api/schedules/route";
import * as scheduleRoute from "../app/api/schedules/[id]/route";
import * as triggerRoute from "../app/api/schedules/[id]/trigger/route";
import * as secretRoute from "../app/api/secrets/[name]/route";
import * as accessRoute from "../app/api/secrets/[name]/access/route";
import * as runRoute from "../app/api/runs/[id]/route";

const SECRET_KEY = crypto.randomBytes(32).toString("base64");
process.env.VIGIL_SECRET_KEY = SECRET_KEY;

// Each line carries its own random marker: finding one anywhere (in any form that keeps it readable) is a leak.
const HEX = [0, 1, 2, 3].map(() => crypto.randomBytes(8).toString("hex"));
const VALUE = [
  `-----BEGIN KEY ${HEX[0]}-----`,
  `say "${HEX[1]}" \\ with a backslash`,
  `  path/${HEX[2]}+x=y&z é`,
  `-----END KEY ${HEX[3]}-----`,
].join("\n");

const db = useTestDatabase("secret_forms");
let worker: TestWorker;
let jobs: string;
let operator = "";
let admin = "";

const FORMS_HANDLER = `
import { defineHandler, z } from "vigil/sdk";
export const forms = defineHandler({
  name: "leak.forms",
  description: "prints the secret it is given in every form a careless handler might",
  payload: z.strictObject({ token: z.string(), fail: z.boolean().default(false) }),
  async run(p, ctx) {
    const t = p.token;
    const forms = {
      raw: t,
      json: JSON.stringify({ t }),
      jsonTwice: JSON.stringify(JSON.stringify({ t })),
      unicode: JSON.stringify(t).replace(/[\\u0080-\\uffff]/g, (c) => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")),
      percent: encodeURIComponent(t),
      percentLower: encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      form: new URLSearchParams({ t }).toString(),
      base64: Buffer.from(t).toString("base64"),
      base64url: Buffer.from(t).toString("base64url"),
      basic: "Basic " + Buffer.from("user:" + t).toString("base64"),
    };
    for (const [k, v] of Object.entries(forms)) ctx.log("info", k + " " + v, { [k]: v, nested: { list: [v] } });
    t.split("\\n").forEach((l, i) => ctx.log("info", "line " + i + ": " + l));
    // Console output goes through the run's log too, not straight to the worker's output.
    console.log("console", t);
    console.error("console error", forms.json);
    // Across the cut of a stored log line (4000 characters).
    ctx.log("info", "x".repeat(3990) + t + " " + forms.json);
    if (p.fail) throw new Error("y".repeat(3900) + t + forms.jsonTwice + "z".repeat(20000) + forms.base64 + " " + t);
    return { records: 1, summary: "done " + forms.json };
  },
});
`;

const SHELL_SCRIPT = [
  `printf '%s\\n' "$TOKEN"`,
  // One line far past the 8 KiB cut, with the value (base64, then its lines joined) straddling the cut.
  `{ head -c 8180 /dev/zero | tr '\\0' x; printf '%s' "$TOKEN" | base64 -w0; head -c 9000 /dev/zero | tr '\\0' y; echo; }`,
  `{ head -c 8170 /dev/zero | tr '\\0' x; printf '%s' "$TOKEN" | tr '\\n' ' '; head -c 9000 /dev/zero | tr '\\0' y; echo; }`,
  // On stderr, across the 300-character cut of the tail the error message quotes.
  `{ head -c 290 /dev/zero | tr '\\0' 0; printf '%s\\n' "$TOKEN"; } >&2`,
  `exit 3`,
].join("\n");

// The worker may take its whole 180 s warm-up on a loaded machine: the hook waits as long.
beforeAll(async () => {
  operator = await createTestToken(db.url, "operator");
  admin = await createTestToken(db.url, "admin");
  jobs = fs.mkdtempSync(path.join(os.tmpdir(), "secret-forms-"));
  fs.writeFileSync(path.join(jobs, "forms.ts"), FORMS_HANDLER);
  worker = await startWarmWorker(db.url, { VIGIL_SECRET_KEY: SECRET_KEY, VIGIL_PLAN_AHEAD_SECONDS: "30" }, 180_000, [
    "--handlers",
    jobs,
    "--serve",
    "leak.forms,shell.command",
  ]);
}, 200_000);

afterAll(async () => {
  await worker?.stop();
  if (jobs) fs.rmSync(jobs, { recursive: true, force: true });
});

const later = { kind: "once", at: "2099-01-01T00:00:00Z" };

async function setSecret(name: string, value: string, access: Record<string, string[]>) {
  const r = await callRoute(secretRoute.PUT, { method: "PUT", token: admin, params: { name }, body: { value, access } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function create(body: Record<string, unknown>, token = operator) {
  return callRoute(schedulesRoute.POST, { method: "POST", token, body: { trigger: later, retryMaxAttempts: 1, ...body } });
}

/** As an admin: triggering the shell.command schedule needs the program permission. */
async function trigger(scheduleId: string): Promise<string> {
  const t = await callRoute(triggerRoute.POST, { method: "POST", token: admin, params: { id: scheduleId }, body: { reason: "forms" } });
  expect(t.status, JSON.stringify(t.body)).toBe(200);
  return t.body.runId as string;
}

async function finished(runId: string): Promise<{ state: string; error: string | null; attempt: number }> {
  return waitFor(
    `run ${runId} to finish`,
    async () =>
      (await getPool().query(`SELECT state, error, attempt FROM runs WHERE id = $1 AND finished_at IS NOT NULL`, [runId])).rows[0],
    { timeoutMs: 90_000, intervalMs: 200 },
  );
}

/** Every readable trace of the value in text: a line's marker as is, or inside any base64-looking run of characters. */
function leaks(text: string): string[] {
  const found = HEX.filter((h) => text.includes(h)).map((h) => `marker ${h}`);
  for (const m of text.matchAll(/[A-Za-z0-9+/_-]{16,}/g)) {
    const b64 = m[0].replace(/-/g, "+").replace(/_/g, "/");
    for (let shift = 0; shift < 4; shift++) {
      const decoded = Buffer.from(b64.slice(shift), "base64").toString("latin1");
      for (const h of HEX) if (decoded.includes(h)) found.push(`base64 of ${h} in ${m[0].slice(0, 40)}…`);
    }
  }
  return found;
}

describe("redaction with a real worker", () => {
  it("takes every form of a multi-line secret out of the run's API answer, logs, events, tables and the worker's output", async () => {
    await setSecret("MULTI", VALUE, { tags: ["forms"] });
    const runs: string[] = [];
    for (const [name, payload, handler] of [
      ["forms-ok", { token: { $secret: "MULTI" } }, "leak.forms"],
      ["forms-fail", { token: { $secret: "MULTI" }, fail: true }, "leak.forms"],
      ["forms-shell", { script: SHELL_SCRIPT, env: { TOKEN: { $secret: "MULTI" } } }, "shell.command"],
    ] as const) {
      const c = await create({ name, handler, tags: ["forms"], payload }, admin);
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      runs.push(await trigger(c.body.schedule.id));
    }
    const [ok, bad, shell] = await Promise.all(runs.map(finished));
    expect(ok!.state).toBe("succeeded");
    expect(bad!.state).toBe("failed");
    // The thrown text is cut to MAX_DESCRIPTION in the thread, with the value straddling the cut: redacted first.
    expect(bad!.error!.length).toBeLessThanOrEqual(MAX_DESCRIPTION);
    expect(bad!.error).toContain("[secret MULTI]");
    expect(shell!.state).toBe("failed");
    expect(shell!.error).toMatch(/exit code 3; last stderr: 0{290}\[secret/);

    const texts: [string, string][] = [];
    for (const id of runs) {
      const answer = await callRoute(runRoute.GET, { token: admin, params: { id } });
      expect(answer.status).toBe(200);
      texts.push([`GET /api/runs/${id}`, JSON.stringify(answer.body)]);
      // Not vacuous: the handler's lines are there, redacted.
      expect(JSON.stringify(answer.body)).toContain("[secret MULTI]");
    }
    const okTrace = JSON.parse(texts[0]![1]) as { logs: { message: string }[] };
    const messages = okTrace.logs.map((l) => l.message);
    for (const form of ["raw", "json", "jsonTwice", "unicode", "percent", "percentLower", "form", "base64", "base64url"]) {
      expect(
        messages.some((m) => m.startsWith(`${form} `) && m.includes("[secret MULTI]")),
        form,
      ).toBe(true);
    }
    expect(messages).toContain("line 1: [secret MULTI]");
    expect(messages).toContain("console [secret MULTI]");
    const shellTrace = JSON.parse(texts[2]![1]) as { logs: { message: string }[] };
    expect(shellTrace.logs.filter((l) => l.message.includes("[secret MULTI]")).length).toBeGreaterThanOrEqual(3);

    const { rows: logRows } = await getPool().query(`SELECT message, fields FROM run_logs WHERE run_id = ANY($1::uuid[])`, [runs]);
    texts.push(["run_logs", JSON.stringify(logRows)]);
    const { rows: events } = await getPool().query(`SELECT type, message, data FROM run_events WHERE run_id = ANY($1::uuid[])`, [runs]);
    texts.push(["run_events", JSON.stringify(events)]);
    const { rows: runRows } = await getPool().query(`SELECT error, result FROM runs WHERE id = ANY($1::uuid[])`, [runs]);
    texts.push(["runs", JSON.stringify(runRows)]);
    // Every table, public and pg-boss's, as text.
    const { rows: tables } = await getPool().query(
      `SELECT schemaname, relname FROM pg_stat_user_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    for (const t of tables) {
      const { rows } = await getPool().query(
        `SELECT coalesce(string_agg(x::text, E'\\n'), '') AS t FROM ${t.schemaname === "public" ? "" : `"${t.schemaname}".`}"${t.relname}" x`,
      );
      texts.push([`table ${t.schemaname}.${t.relname}`, rows[0].t]);
    }
    await waitFor("the failed run's line in the worker's output", () => worker.logs.some((l) => l.includes("[secret MULTI]")), {
      timeoutMs: 10_000,
    });
    texts.push(["worker output", worker.logs.join("\n")]);

    const found = texts.flatMap(([where, text]) => leaks(text).map((l) => `${where}: ${l}`));
    expect(found).toEqual([]);
  });
});

describe("secrets by permission", () => {
  it("refuses an operator's save of a schedule whose secret's rule does not allow it, and stores nothing", async () => {
    await setSecret("PAYMENTS_TOKEN", "payments-token-value", { schedules: ["payouts"], handlers: ["leak.forms"] });
    const refused = await create({ name: "not-payouts", handler: "leak.forms", payload: { token: { $secret: "PAYMENTS_TOKEN" } } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("secret_not_allowed");
    expect(refused.body.error.message).toMatch(
      /Secret PAYMENTS_TOKEN may not be used by schedule not-payouts .*its rule allows schedule payouts, running leak\.forms only/,
    );
    expect(refused.body.error.fields["payload.token"]).toMatch(/PAYMENTS_TOKEN/);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM schedules WHERE name = 'not-payouts'`);
    expect(rows[0].n).toBe(0);

    // The right name but a handler the rule does not list (one that could print it anywhere).
    const shell = await create(
      { name: "payouts", handler: "shell.command", payload: { script: "true", env: { T: { $secret: "PAYMENTS_TOKEN" } } } },
      admin,
    );
    expect(shell.status).toBe(422);
    expect(shell.body.error.code).toBe("secret_not_allowed");

    // Allowed by name and handler: saved; renaming it through the API is refused like a new reference.
    const ok = await create({ name: "payouts", handler: "leak.forms", payload: { token: { $secret: "PAYMENTS_TOKEN" } } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const rename = await callRoute(scheduleRoute.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: ok.body.schedule.id },
      body: { revision: ok.body.schedule.revision, name: "payouts-renamed" },
    });
    expect(rename.status).toBe(422);
    expect(rename.body.error.code).toBe("secret_not_allowed");
    const { rows: kept } = await getPool().query(`SELECT name FROM schedules WHERE id = $1`, [ok.body.schedule.id]);
    expect(kept[0].name).toBe("payouts");
  });

  it("only an admin changes a rule, audited without the value; a run whose schedule lost the right fails without resolving it", async () => {
    const value = `ruled-${crypto.randomBytes(8).toString("hex")}`;
    await setSecret("RULED_TOKEN", value, { schedules: ["ruled-a", "ruled-b"] });
    const a = await create({ name: "ruled-a", handler: "leak.forms", retryMaxAttempts: 3, payload: { token: { $secret: "RULED_TOKEN" } } });
    const b = await create({ name: "ruled-b", handler: "leak.forms", retryMaxAttempts: 3, payload: { token: { $secret: "RULED_TOKEN" } } });
    expect([a.status, b.status]).toEqual([200, 200]);
    // Its ciphertext is made undecryptable: a run that tried to resolve it would fail saying so, not with the rule.
    await getPool().query(`UPDATE secrets SET auth_tag = '\\x00000000000000000000000000000000' WHERE name = 'RULED_TOKEN'`);

    const byOperator = await callRoute(accessRoute.PUT, {
      method: "PUT",
      token: operator,
      params: { name: "RULED_TOKEN" },
      body: { access: { schedules: ["ruled-a"] } },
    });
    expect(byOperator.status).toBe(403);
    const changed = await callRoute(accessRoute.PUT, {
      method: "PUT",
      token: admin,
      params: { name: "RULED_TOKEN" },
      body: { access: { schedules: ["ruled-b"] } },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.secret).toMatchObject({ accessSummary: "schedule ruled-b", refused: ["ruled-a"] });
    const { rows: audit } = await getPool().query(
      `SELECT before, after FROM audit_events WHERE action = 'secret.access' AND target_id = 'RULED_TOKEN'`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].before.access.schedules).toEqual(["ruled-a", "ruled-b"]);
    expect(audit[0].after.access.schedules).toEqual(["ruled-b"]);
    expect(JSON.stringify(audit)).not.toContain(value);

    // ruled-a lost the right when the rule changed; ruled-b loses it when renamed behind the API's back.
    await getPool().query(`UPDATE schedules SET name = 'ruled-b-renamed' WHERE id = $1`, [b.body.schedule.id]);
    for (const [s, name] of [
      [a, "ruled-a"],
      [b, "ruled-b-renamed"],
    ] as const) {
      const runId = await trigger(s.body.schedule.id);
      const run = await finished(runId);
      expect(run.state).toBe("failed");
      // Refused for good: not retried, and nothing decrypted (the altered value would have said so).
      expect(run.attempt).toBe(1);
      expect(run.error).toMatch(
        new RegExp(
          `^Secret RULED_TOKEN may not be used by schedule ${name} \\(handler leak.forms, no tags\\): its rule allows schedule ruled-b\\.`,
        ),
      );
      expect(run.error).not.toMatch(/decrypt/);
      const { rows: logs } = await getPool().query(`SELECT count(*)::int AS n FROM run_logs WHERE run_id = $1`, [runId]);
      expect(logs[0].n).toBe(0);
    }
  });
});
