// Reads the audit trail newest first with keyset pagination on id (a page never skips or repeats
// rows, however many are appended meanwhile). Every filter is a bound parameter.
import { maskCredentials } from "../secrets/mask-credentials";
import type { Queryable } from "../db/pool";
import { parseTarget, type AuditFilter } from "./audit-filter";
import { AUDIT_TEAM_SQL } from "./audit-team";

// Must match the index expression in migration 20261129300000_audit_search exactly.
export const AUDIT_SEARCH_TEXT =
  "(action || ' ' || actor || ' ' || target_type || ':' || coalesce(target_id, '') || ' ' || coalesce(reason, ''))";

export interface AuditEventView {
  id: number;
  at: Date;
  actorType: string;
  actorId: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
  hash: string;
}

const COLUMNS = "id, at, actor_type, actor_id, actor, action, target_type, target_id, before, after, reason, ip, user_agent, hash";

/** A row of COLUMNS. */
interface AuditRow {
  id: number;
  at: Date;
  actor_type: string;
  actor_id: string | null;
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string;
}

function toView(r: AuditRow): AuditEventView {
  return {
    id: Number(r.id),
    at: r.at,
    actorType: r.actor_type,
    actorId: r.actor_id ?? null,
    actor: r.actor,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id ?? null,
    before: r.before ?? null,
    after: r.after ?? null,
    reason: r.reason ?? null,
    ip: r.ip ?? null,
    userAgent: r.user_agent ?? null,
    hash: r.hash,
  };
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE clause for a filter; `beforeId` is the keyset cursor (exclusive). */
export function auditWhere(
  f: AuditFilter & { teamIds?: readonly string[] | null },
  beforeId?: number | string,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const conds: string[] = [];
  if (f.actor) conds.push(`actor = ${p(f.actor)}`);
  if (f.action) conds.push(`action = ${p(f.action)}`);
  if (f.target) {
    const t = parseTarget(f.target);
    conds.push(`target_type = ${p(t.type)}`);
    if (t.id !== undefined) conds.push(`target_id = ${p(t.id)}`);
  }
  // Ids and times are assigned together under the chain's lock (init migration), so id order is
  // time order: a time range becomes an id range too, which keeps "newest first by id" an index scan.
  if (f.from) {
    const from = p(f.from);
    conds.push(`at >= ${from}`);
    conds.push(`id >= COALESCE((SELECT id FROM audit_events WHERE at >= ${from} ORDER BY at, id LIMIT 1), 9223372036854775807)`);
  }
  if (f.to) {
    const to = p(f.to);
    conds.push(`at <= ${to}`);
    conds.push(`id <= COALESCE((SELECT id FROM audit_events WHERE at <= ${to} ORDER BY at DESC, id DESC LIMIT 1), 0)`);
  }
  if (f.q) conds.push(`${AUDIT_SEARCH_TEXT} ILIKE ${p(`%${escapeLike(f.q)}%`)}`);
  if (beforeId !== undefined) conds.push(`id < ${p(beforeId)}`);
  // Per team (core/teams/team-access.ts visibleTeamIds(actor, "audit")): rows of those teams' objects only.
  if (f.teamIds) conds.push(`${AUDIT_TEAM_SQL} = ANY(${p([...f.teamIds])}::uuid[])`);
  return { sql: conds.length ? `WHERE ${conds.join(" AND ")}` : "", params };
}

export interface AuditPage {
  events: AuditEventView[];
  /** Pass as `cursor` for the next (older) page; null when this is the last page. */
  nextCursor: string | null;
}

/** mask: rows written before masking existed may hold plain credentials in before/after; a viewer sees them masked. */
export async function listAudit(
  db: Queryable,
  f: AuditFilter & { cursor?: string; limit?: number; mask?: boolean; teamIds?: readonly string[] | null },
): Promise<AuditPage> {
  const limit = f.limit ?? 50;
  const where = auditWhere(f, f.cursor);
  const { rows } = await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_events ${where.sql} ORDER BY id DESC LIMIT $${where.params.length + 1}`,
    [...where.params, limit + 1],
  );
  const events = rows
    .slice(0, limit)
    .map(toView)
    .map((e) => (f.mask ? { ...e, before: maskCredentials(e.before), after: maskCredentials(e.after) } : e));
  return { events, nextCursor: rows.length > limit ? String(events[events.length - 1]!.id) : null };
}
