// A schedule's run-after links as its input names them ({schedule: "<name or id>", condition, mapping}) resolved to
// live schedules, written to schedule_dependencies in their order, and checked for cycles: a link that closes a
// cycle is refused naming it ("a → b → a"). Writers of links take one transaction-scoped advisory lock, so two
// saves that each add half of a cycle cannot both pass the check.
import type { Queryable } from "../db/pool";
import { ConflictError, ValidationError } from "../errors";
import type { RunAfterInput, RunAfterLink } from "./run-after-input";
import { isUuid } from "./schedule-record";
import { followUpstreamLinks } from "../runs/chain/follow-upstream-links";

const LINKS_LOCK = "vigil_schedule_dependencies";

export async function resolveRunAfter(tx: Queryable, scheduleId: string | null, input: RunAfterInput): Promise<RunAfterLink[]> {
  if (input.length === 0) return [];
  const refs = input.map((l) => l.schedule);
  const { rows } = await tx.query<{ id: string; name: string }>(
    `SELECT id, name FROM schedules WHERE deleted_at IS NULL AND (name = ANY($1::text[]) OR id::text = ANY($2::text[]))`,
    [refs, refs.filter(isUuid).map((r) => r.toLowerCase())],
  );
  const fields: Record<string, string> = {};
  const seen = new Set<string>();
  const out: RunAfterLink[] = [];
  input.forEach((l, i) => {
    const hit = rows.find((r) => r.id === l.schedule.toLowerCase()) ?? rows.find((r) => r.name === l.schedule);
    const at = `after.${i}.schedule`;
    if (!hit) fields[at] = `No schedule named "${l.schedule}" to run after; create it first`;
    else if (hit.id === scheduleId) fields[at] = `A schedule cannot run after itself (${hit.name})`;
    else if (seen.has(hit.id)) fields[at] = `Schedule "${hit.name}" is listed twice`;
    else {
      seen.add(hit.id);
      out.push({ id: hit.id, name: hit.name, condition: l.condition, mapping: l.mapping, mappingTimezone: l.mappingTimezone ?? null });
    }
  });
  const problems = Object.values(fields);
  if (problems.length > 0) throw new ValidationError(problems.length === 1 ? problems[0]! : "Some run-after links are not valid.", fields);
  return out;
}

/** Replaces the schedule's links with `links`, in order, and refuses (422 dependency_cycle) a cycle they close. */
export async function writeRunAfter(tx: Queryable, scheduleId: string, links: readonly RunAfterLink[]): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [LINKS_LOCK]);
  await tx.query(`DELETE FROM schedule_dependencies WHERE schedule_id = $1`, [scheduleId]);
  await followUpstreamLinks(tx, scheduleId, links.length > 0);
  if (links.length === 0) return;
  await tx.query(
    `INSERT INTO schedule_dependencies (schedule_id, upstream_id, condition, mapping, mapping_timezone, position)
     SELECT $1, l.upstream_id, l.condition, l.mapping, l.zone, l.position
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[]) AS l(upstream_id, condition, mapping, zone, position)`,
    [
      scheduleId,
      links.map((l) => l.id),
      links.map((l) => l.condition),
      links.map((l) => l.mapping),
      links.map((l) => l.mappingTimezone),
      links.map((_, i) => i),
    ],
  );
  const cycle = await findCycleThrough(tx, scheduleId);
  if (cycle) {
    const message = `Run-after links may not form a cycle: ${cycle.join(" → ")} would wait for itself`;
    throw new ValidationError(message, { after: message }, "dependency_cycle");
  }
}

/** The names along a cycle through the schedule, in run order ("a → b → a"), or null. */
export async function findCycleThrough(db: Queryable, scheduleId: string): Promise<string[] | null> {
  const { rows } = await db.query<{ names: string[] }>(
    `WITH RECURSIVE walk(id, path) AS (
       SELECT d.upstream_id, ARRAY[d.schedule_id, d.upstream_id] FROM schedule_dependencies d WHERE d.schedule_id = $1
       UNION ALL
       SELECT d.upstream_id, w.path || d.upstream_id
         FROM walk w JOIN schedule_dependencies d ON d.schedule_id = w.id
        WHERE w.id <> $1 AND NOT d.upstream_id = ANY(w.path[2:])
     )
     SELECT (SELECT array_agg(s.name ORDER BY p.n DESC) FROM unnest(w.path) WITH ORDINALITY AS p(id, n) JOIN schedules s ON s.id = p.id) AS names
       FROM walk w WHERE w.id = $1
      ORDER BY array_length(w.path, 1) LIMIT 1`,
    [scheduleId],
  );
  return rows[0]?.names ?? null;
}

/** Refuses (409 schedule_has_followers) deleting a schedule that live schedules run after, naming them. */
export async function assertNoFollowers(db: Queryable, scheduleId: string, name: string): Promise<void> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT f.name FROM schedule_dependencies d JOIN schedules f ON f.id = d.schedule_id
      WHERE d.upstream_id = $1 AND f.deleted_at IS NULL ORDER BY f.name`,
    [scheduleId],
  );
  if (rows.length === 0) return;
  throw new ConflictError(
    `Schedule ${name} cannot be deleted: ${rows.map((r) => r.name).join(", ")} ${rows.length === 1 ? "runs" : "run"} after it. Remove it from their run-after links first.`,
    "schedule_has_followers",
  );
}

/** The schedule answer's links in the input's shape (schedules as code, the form). */
export function runAfterReferences(links: readonly RunAfterLink[] | undefined) {
  return (links ?? []).map((l) => ({
    schedule: l.name,
    condition: l.condition,
    mapping: l.mapping,
    ...(l.mappingTimezone ? { mappingTimezone: l.mappingTimezone } : {}),
  }));
}
