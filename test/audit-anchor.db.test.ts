// The audit anchor: a truncation of the newest audit rows by a superuser (triggers disabled)
// leaves a chain that still links up — plain verify says ok — but verification against an anchor published
// before the truncation fails with a message that says what is missing. And a real worker publishes the anchor.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPool, useTestDatabase } from "./db";
import { createTestToken } from "./auth";
import { callRoute } from "./call-route";
import { startWorker } from "./worker-process";
import { startWebhookReceiver } from "./webhook-receiver";
import { waitFor } from "./wait-for";
import pino from "pino";
import { systemActor } from "../core/auth/roles";
import { recordAudit } from "../core/audit/record-audit";
import { verifyAudit } from "../core/audit/verify-audit";
import { verifyAuditWithAnchor } from "../core/audit/verify-audit-anchor";
import { publishAuditAnchor } from "../core/audit/publish-audit-anchor";
import { readAuditHead, readLastAnchorFromFile } from "../core/audit/audit-anchor";
import { verifyWebhookSignature } from "../core/alerts/webhook/sign-webhook";
import { GET as verifyGET, POST as verifyPOST } from "@/app/api/audit/verify/route";

const db = useTestDatabase("audit_anchor");
const run = promisify(execFile);
let pool: pg.Pool;
let dir: string;
// Not getLogger(): it would read the environment before useTestDatabase sets DATABASE_URL.
const quiet = pino({ level: "silent" });

beforeAll(() => {
  pool = testPool(db.url);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-anchor-"));
});
afterAll(async () => {
  await pool.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function audit(n: number, action = "schedule.edit") {
  for (let i = 0; i < n; i++)
    await recordAudit(pool, { actor: systemActor("anchor-test"), action, targetType: "schedule", targetId: `s${i}` });
}

/** What someone with superuser rights can do: delete rows with the append-only triggers switched off. */
async function truncateNewestAsSuperuser(fromSeq: number) {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    await c.query("SET session_replication_role = replica");
    await c.query("DELETE FROM audit_events WHERE id >= $1", [fromSeq]);
  } finally {
    await c.end();
  }
}

function auditVerifyCli(args: string[]) {
  return run(process.execPath, ["--import", "tsx", "scripts/audit-verify.ts", ...args], {
    env: { ...process.env, DATABASE_URL: db.url, VIGIL_AUDIT_ANCHOR_FILE: "" },
  }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

describe("audit anchor", () => {
  it("a truncation of the newest rows passes plain verify but fails against an anchor published before it", async () => {
    const file = path.join(dir, "anchors.jsonl");
    await audit(5);
    const published = await publishAuditAnchor(pool, { sinks: { file }, publishedBy: "test", log: quiet });
    expect(published.status).toBe("published");
    const anchor = readLastAnchorFromFile(file);
    await audit(3);
    expect((await verifyAuditWithAnchor(pool, anchor)).ok).toBe(true);
    expect((await auditVerifyCli(["--anchor-file", file])).code).toBe(0);

    // Remove the anchored row, one before it, and everything after.
    await truncateNewestAsSuperuser(anchor.seq - 1);

    const plain = await verifyAudit(pool);
    expect(plain.ok).toBe(true);
    const anchored = await verifyAuditWithAnchor(pool, anchor);
    expect(anchored.ok).toBe(false);
    expect(anchored.anchorProblem).toBe(
      `the chain ends at seq ${anchor.seq - 2} but an anchor published at ${anchor.at} records seq ${anchor.seq}: rows at or before the anchor were removed`,
    );

    const cli = await auditVerifyCli(["--anchor-file", file]);
    expect(cli.code).toBe(1);
    expect(cli.out).toContain(`the chain ends at seq ${anchor.seq - 2} but an anchor published at ${anchor.at} records seq ${anchor.seq}`);

    const token = await createTestToken(db.url, "viewer");
    const q = `?anchorSeq=${anchor.seq}&anchorHash=${anchor.hash}&anchorAt=${encodeURIComponent(anchor.at!)}`;
    const viaGet = await callRoute(verifyGET, { path: `/api/audit/verify${q}`, token });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toMatchObject({ ok: false, brokenId: null, anchor: { seq: anchor.seq } });
    expect(viaGet.body.anchorProblem).toContain(`records seq ${anchor.seq}`);
    const viaPost = await callRoute(verifyPOST, {
      method: "POST",
      path: "/api/audit/verify",
      token,
      body: { type: "vigil.audit_anchor", ...anchor },
    });
    expect(viaPost.body.ok).toBe(false);
    // Without an anchor in the request, the console checks against the last one the workers published.
    const known = await callRoute(verifyGET, { path: "/api/audit/verify", token });
    expect(known.body).toMatchObject({ ok: false, anchor: { seq: anchor.seq, source: "database" } });
    expect((await callRoute(verifyGET, { path: "/api/audit/verify?anchorSeq=x&anchorHash=y", token })).status).toBe(400);

    // Rows appended after the truncation do not hide it: the anchored row is gone or has another hash.
    await audit(10);
    const refilled = await verifyAuditWithAnchor(pool, anchor);
    expect(refilled.ok).toBe(false);
    expect(refilled.anchorProblem).toMatch(/is missing|has hash/);
    // And the publisher refuses to anchor the rewritten head (that would make the newest anchor agree with it).
    const again = await publishAuditAnchor(pool, { sinks: { file }, publishedBy: "test", log: quiet });
    expect(again.status).toBe("mismatch");
    expect(readLastAnchorFromFile(file)).toEqual(anchor);
  });

  it("npm run audit-verify shows an anchor's hash that differs late far enough to see where it differs", async () => {
    await audit(2);
    const head = (await readAuditHead(pool))!;
    // A hash that agrees with the row's on its first 40 characters: cut at a common prefix, both would look equal.
    const flip = (c: string) => (c === "0" ? "1" : "0");
    const forged = `${head.hash.slice(0, 40)}${flip(head.hash[40]!)}${head.hash.slice(41)}`;
    const cli = await auditVerifyCli(["--anchor-seq", String(head.seq), "--anchor-hash", forged]);
    expect(cli.code).toBe(1);
    const line = cli.out.split("\n").find((l) => l.includes("ANCHOR NOT MATCHED"));
    expect(line).toContain(`has hash ${head.hash.slice(0, 48)}… but the anchor records ${forged.slice(0, 48)}…`);
    expect(line).toContain("they differ from character 41 on");
  });

  it("a running worker publishes the head to the file and a signed webhook, once per change", async () => {
    await pool.query("DELETE FROM audit_anchors");
    const file = path.join(dir, "worker-anchors.jsonl");
    const receiver = await startWebhookReceiver(() => 200);
    const worker = startWorker(db.url, {
      VIGIL_AUDIT_ANCHOR_INTERVAL: "1",
      VIGIL_AUDIT_ANCHOR_FILE: file,
      VIGIL_AUDIT_ANCHOR_WEBHOOK: receiver.url("/anchor"),
      VIGIL_AUDIT_ANCHOR_WEBHOOK_SECRET: "anchor-secret",
    });
    try {
      await worker.workerId();
      const headSeq = async () => Number((await pool.query("SELECT max(id) AS id FROM audit_events")).rows[0].id);
      await audit(1, "schedule.create");
      const first = await headSeq();
      await waitFor(
        "the worker to append the head to the anchor file",
        () => fs.existsSync(file) && readLastAnchorFromFile(file).seq === first,
        {
          timeoutMs: 20000,
        },
      );
      await audit(2, "schedule.pause");
      const second = await headSeq();
      await waitFor("the second anchor", () => readLastAnchorFromFile(file).seq === second, { timeoutMs: 20000 });
      const lines = fs
        .readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      // Only when the head changed: no line repeats a head.
      expect(new Set(lines.map((l) => l.seq)).size).toBe(lines.length);
      const last = lines.at(-1);
      expect(last.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(last.count).toBe(Number((await pool.query("SELECT count(*) FROM audit_events")).rows[0].count));
      expect((await verifyAuditWithAnchor(pool, last)).ok).toBe(true);

      const hook = await waitFor("the webhook with the second anchor", () =>
        receiver.received.find((r) => JSON.parse(r.body).seq === second),
      );
      expect(JSON.parse(hook.body)).toMatchObject({ type: "vigil.audit_anchor", seq: second, hash: last.hash });
      const signed = verifyWebhookSignature(
        "anchor-secret",
        { signature: hook.headers["x-vigil-signature"] as string, timestamp: hook.headers["x-vigil-timestamp"] as string },
        hook.body,
        { nowSeconds: Number(hook.headers["x-vigil-timestamp"]) },
      );
      expect(signed).toBe(true);
      expect(worker.logs.some((l) => l.includes(`audit anchor: seq ${second}`))).toBe(true);
      // Recorded in the database once every sink has it (the same transaction commits after the webhook answered).
      const recorded = await waitFor("the database's record of the second anchor", async () => {
        const { rows } = await pool.query("SELECT audit_id, sinks FROM audit_anchors WHERE audit_id = $1", [second]);
        return rows[0];
      });
      expect(recorded.sinks).toEqual(["log", "file", "webhook"]);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
