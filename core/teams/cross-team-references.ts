// A schedule refers only to its own team's secrets, calendars and concurrency group, or to ones their owner team
// shares with it (team_shares): anything else is refused on save, naming the object and the team that owns it. The
// schedules it runs after (run-after chains) are its own team's too: another team's runs do not start or hold ours.
// Callers run it in the save's transaction, after the write, with the schedule as stored: a refusal rolls it back.
import type { Queryable } from "../db/pool";
import { findSecretRefs } from "../secrets/secret-refs";
import { CrossTeamReferenceError } from "./team-access";
import type { Schedule } from "../schedules/schedule-record";

/** A share that lets `team` (an SQL expression) use the object o (kind, key, team_id). */
export const SHARED_WITH_SQL = (team: string) =>
  `EXISTS (SELECT 1 FROM team_shares sh WHERE sh.owner_team_id = o.team_id AND sh.kind = o.kind AND sh.object_key = o.key
            AND (sh.shared_with_team_id IS NULL OR sh.shared_with_team_id = ${team}))`;

export async function assertReferencesInTeam(
  db: Queryable,
  s: Pick<Schedule, "teamId" | "payload" | "calendars" | "concurrencyGroup" | "after">,
): Promise<void> {
  const refs = findSecretRefs(s.payload ?? {});
  const calendars = (s.calendars ?? []).map((c) => c.id);
  const upstreams = (s.after ?? []).map((a) => a.id);
  if (refs.length === 0 && calendars.length === 0 && upstreams.length === 0 && !s.concurrencyGroup) return;
  const { rows } = await db.query<{ kind: string; key: string; label: string; owner: string }>(
    `SELECT o.kind, o.key, o.label, t.name AS owner FROM (
        SELECT 'secret' AS kind, name AS key, name AS label, team_id FROM secrets WHERE name = ANY($1::text[])
        UNION ALL SELECT 'calendar', id::text, name, team_id FROM calendars WHERE id = ANY($2::uuid[])
        UNION ALL SELECT 'concurrency_group', name, name, team_id FROM concurrency_groups WHERE name = $3
        UNION ALL SELECT 'schedule', id::text, name, team_id FROM schedules WHERE id = ANY($5::uuid[])
      ) o JOIN teams t ON t.id = o.team_id
     WHERE o.team_id <> $4 AND NOT ${SHARED_WITH_SQL("$4")}
     ORDER BY o.kind, o.key`,
    [[...new Set(refs.map((r) => r.name))], calendars, s.concurrencyGroup ?? null, s.teamId, upstreams],
  );
  const first = rows[0];
  if (!first) return;
  const field = (kind: string, key: string): string => {
    if (kind === "secret") {
      const ref = refs.find((r) => r.name === key);
      return ref?.path ? `payload.${ref.path}` : "payload";
    }
    if (kind === "calendar") return `calendars.${calendars.indexOf(key)}.calendar`;
    if (kind === "schedule") return `after.${upstreams.indexOf(key)}.schedule`;
    return "concurrencyGroup";
  };
  const words: Record<string, string> = {
    secret: "secret",
    calendar: "calendar",
    concurrency_group: "concurrency group",
    schedule: "upstream schedule",
  };
  throw new CrossTeamReferenceError(words[first.kind]!, first.label, first.owner, field(first.kind, first.key));
}
