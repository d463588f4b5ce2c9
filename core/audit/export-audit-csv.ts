// The filtered audit trail as CSV, produced batch by batch so a million rows stream out without
// being held in memory. Rows appended while the export runs are not included (it starts below the
// newest id at the moment it began), so the file is one consistent cut of the trail.
import type { Queryable } from "../db/pool";
import type { AuditFilter } from "./audit-filter";
import { listAudit, type AuditEventView } from "./list-audit";
import { csvRow } from "./csv-cell";

const BATCH = 2000;

export const AUDIT_CSV_HEADER = [
  "id",
  "at",
  "actor_type",
  "actor_id",
  "actor",
  "action",
  "target_type",
  "target_id",
  "reason",
  "before",
  "after",
  "ip",
  "user_agent",
  "hash",
];

function row(e: AuditEventView): string {
  return csvRow([
    e.id,
    e.at,
    e.actorType,
    e.actorId,
    e.actor,
    e.action,
    e.targetType,
    e.targetId,
    e.reason,
    e.before,
    e.after,
    e.ip,
    e.userAgent,
    e.hash,
  ]);
}

export async function* exportAuditCsv(
  db: Queryable,
  filter: AuditFilter & { mask?: boolean; teamIds?: readonly string[] | null },
): AsyncGenerator<string> {
  yield csvRow(AUDIT_CSV_HEADER);
  const { rows } = await db.query<{ top: number }>(`SELECT COALESCE(max(id), 0) + 1 AS top FROM audit_events`);
  let cursor: string | null = String(rows[0]!.top);
  while (cursor) {
    const page = await listAudit(db, { ...filter, cursor, limit: BATCH });
    if (page.events.length) yield page.events.map(row).join("");
    cursor = page.nextCursor;
  }
}
