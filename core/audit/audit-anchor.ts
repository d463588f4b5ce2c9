// An audit anchor: the chain head {seq, hash, count, at} published outside the database. seq is the audit row's
// id, hash that row's chain hash, count how many rows the chain held up to and including it. Whoever holds an
// anchor can later prove that the row at seq still exists with that hash and that nothing before it went missing.
import fs from "node:fs";
import { z } from "zod";
import type { Queryable } from "../db/pool";

export const auditAnchorSchema = z.object({
  seq: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex characters (a sha256 chain hash)"),
  count: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  at: z.iso.datetime({ offset: true }).optional(),
});

export type AuditAnchor = z.infer<typeof auditAnchorSchema>;

export interface AuditHead {
  seq: number;
  hash: string;
  count: number;
}

/** The newest row of the chain, or null while the trail is empty. */
export async function readAuditHead(db: Queryable): Promise<AuditHead | null> {
  const { rows } = await db.query<{ id: string; hash: string; count: string }>(
    `SELECT h.id, h.hash, (SELECT count(*) FROM audit_events) AS count
       FROM (SELECT id, hash FROM audit_events ORDER BY id DESC LIMIT 1) h`,
  );
  const r = rows[0];
  return r ? { seq: Number(r.id), hash: r.hash, count: Number(r.count) } : null;
}

/** The last anchor the workers recorded as published (audit_anchors), or null. */
export async function findLastPublishedAnchor(db: Queryable): Promise<Required<AuditAnchor> | null> {
  const { rows } = await db.query<{ audit_id: string; hash: string; count: string; published_at: Date }>(
    `SELECT audit_id, hash, count, published_at FROM audit_anchors ORDER BY id DESC LIMIT 1`,
  );
  const r = rows[0];
  return r ? { seq: Number(r.audit_id), hash: r.hash, count: Number(r.count), at: (r.published_at as Date).toISOString() } : null;
}

/** The newest anchor in the file, or null when the file does not exist yet or is empty. */
export function findLastAnchorInFile(file: string): AuditAnchor | null {
  if (!fs.existsSync(file) || fs.readFileSync(file, "utf8").trim() === "") return null;
  return readLastAnchorFromFile(file);
}

/**
 * The newest anchor known here: the file's last line (the copy outside the database, preferred) or the database's
 * record of the last publication, whichever is further along. null when neither has one.
 */
export async function findKnownAnchor(db: Queryable, file: string | undefined): Promise<(AuditAnchor & { source: string }) | null> {
  const recorded = await findLastPublishedAnchor(db);
  const inFile = file ? findLastAnchorInFile(file) : null;
  if (inFile && (!recorded || inFile.seq >= recorded.seq)) return { ...inFile, source: "file" };
  return recorded ? { ...recorded, source: "database" } : null;
}

export class AnchorFileError extends Error {}

/**
 * The newest anchor in a JSON-lines anchor file (one anchor per line, appended by the workers). A torn last line
 * (a crash mid-append) is skipped; a file with no valid anchor at all is an error a person must see.
 */
export function readLastAnchorFromFile(file: string): AuditAnchor {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new AnchorFileError(`Cannot read the anchor file ${file}: ${(err as Error).message}`);
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const parsed = auditAnchorSchema.safeParse(JSON.parse(lines[i]!));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON (a torn line): look at the one before
    }
  }
  throw new AnchorFileError(`The anchor file ${file} holds no anchor (expected JSON lines like {"seq":1,"hash":"…","count":1,"at":"…"})`);
}
