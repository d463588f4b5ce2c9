// Publishes the audit chain's head outside the database, so that removing the newest rows (which leaves a chain
// that still links up) is caught by whoever kept a copy: see verify-audit-anchor.ts.
//
// One publisher at a time across workers (a transaction-scoped advisory lock; a worker that does not get it skips
// its turn), and only when the head moved since the last published anchor. Before publishing, the trail is checked
// against the last anchor (the database's record and the file's last line): a trail that no longer matches is
// reported and NOT anchored again — publishing the truncated head would make the latest anchor agree with it.
import fs from "node:fs";
import type pg from "pg";
import type { Logger } from "../log";
import { withTransaction } from "../db/pool";
import { sendWebhook } from "../alerts/webhook/send-webhook";
import { signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../alerts/webhook/sign-webhook";
import { readAuditHead, findLastPublishedAnchor, findLastAnchorInFile, type AuditAnchor } from "./audit-anchor";
import { checkAnchor } from "./verify-audit-anchor";

const PUBLISH_LOCK = 746377; // unlike every other advisory lock key in core/

export interface AnchorSinks {
  /** Append-only JSON-lines file (one anchor per line). */
  file?: string;
  webhook?: { url: string; secret: string | null; timeoutMs: number; userAgent: string };
}

export type PublishResult =
  | { status: "published"; anchor: Required<AuditAnchor>; sinks: string[] }
  | { status: "unchanged" | "busy" | "empty" }
  | { status: "mismatch"; problem: string };

function appendLine(file: string, line: string): void {
  const fd = fs.openSync(file, "a", 0o644);
  try {
    fs.writeSync(fd, line);
    // The anchor is worth something only once it is on disk: flushed before the database records it as published.
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export async function publishAuditAnchor(
  pool: pg.Pool,
  opts: { sinks: AnchorSinks; publishedBy: string; log: Logger },
): Promise<PublishResult> {
  const { sinks, log } = opts;
  return withTransaction(async (tx) => {
    const { rows } = await tx.query(`SELECT pg_try_advisory_xact_lock($1) AS got`, [PUBLISH_LOCK]);
    if (!rows[0].got) return { status: "busy" };
    const head = await readAuditHead(tx);
    if (!head) return { status: "empty" };
    const recorded = await findLastPublishedAnchor(tx);
    const inFile = sinks.file ? findLastAnchorInFile(sinks.file) : null;
    for (const last of [recorded, inFile]) {
      if (!last) continue;
      const problem = await checkAnchor(tx, last, head);
      if (problem) {
        log.error({ anchor: last, head }, `audit trail does not match the last published anchor: ${problem}`);
        return { status: "mismatch", problem };
      }
    }
    if (recorded && recorded.seq === head.seq && recorded.hash === head.hash) return { status: "unchanged" };

    const { rows: now } = await tx.query(`SELECT clock_timestamp() AS at`);
    const anchor = { seq: head.seq, hash: head.hash, count: head.count, at: (now[0].at as Date).toISOString() };
    const published = ["log"];
    log.info({ auditAnchor: anchor }, `audit anchor: seq ${anchor.seq} hash ${anchor.hash} count ${anchor.count}`);
    if (sinks.file) {
      try {
        appendLine(sinks.file, `${JSON.stringify(anchor)}\n`);
        published.push("file");
      } catch (err) {
        log.error({ err, file: sinks.file }, "could not append the audit anchor to VIGIL_AUDIT_ANCHOR_FILE");
      }
    }
    if (sinks.webhook) {
      const body = JSON.stringify({ type: "vigil.audit_anchor", ...anchor });
      const ts = Math.floor(new Date(anchor.at).getTime() / 1000);
      const headers: Record<string, string> = { "user-agent": sinks.webhook.userAgent };
      if (sinks.webhook.secret) {
        headers[SIGNATURE_HEADER] = signWebhook(sinks.webhook.secret, ts, body);
        headers[TIMESTAMP_HEADER] = String(ts);
      }
      const sent = await sendWebhook(sinks.webhook.url, body, headers, sinks.webhook.timeoutMs);
      if (sent.ok) published.push("webhook");
      else
        log.warn({ url: sinks.webhook.url, error: sent.error }, "could not send the audit anchor webhook (the next change is sent again)");
    }
    // Recorded through vigil_record_audit_anchor, which checks the head against the chain itself: the worker's role
    // cannot write audit_anchors (core/db/grants.ts). A head that moved meanwhile is recorded on the next tick.
    await tx.query(`SELECT vigil_record_audit_anchor($1, $2, $3, $4, $5, $6)`, [
      anchor.seq,
      anchor.hash,
      anchor.count,
      anchor.at,
      opts.publishedBy,
      published,
    ]);
    return { status: "published", anchor, sinks: published };
  }, pool);
}
