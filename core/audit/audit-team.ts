// The team an audit row belongs to, read from its target: a schedule's, a run's or an alert's schedule's, a
// calendar's, a secret's, an alert channel's, a concurrency group's. Rows about no team object (users, tokens,
// settings, Vigil itself) belong to no team: only the global admin reads those. The team is derived when read, not
// stored, so the hash chain (and every row written before teams) is untouched; a row about an object since deleted
// outright (a secret, a calendar) belongs to no team any more.
const UUID = "'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'";
const asUuid = (col: string) => `(CASE WHEN ${col} ~* ${UUID} THEN ${col}::uuid END)`;

/** SQL: the team id of the audit row whose target columns are `target_type` and `target_id` (null: no team). */
export const AUDIT_TEAM_SQL = `(CASE target_type
  WHEN 'team' THEN ${asUuid("target_id")}
  WHEN 'schedule' THEN (SELECT s.team_id FROM schedules s WHERE s.id = ${asUuid("target_id")})
  WHEN 'run' THEN (SELECT s.team_id FROM runs r JOIN schedules s ON s.id = r.schedule_id WHERE r.id = ${asUuid("target_id")})
  WHEN 'alert' THEN (SELECT s.team_id FROM alerts a JOIN schedules s ON s.id = a.schedule_id WHERE a.id = ${asUuid("target_id")})
  WHEN 'calendar' THEN (SELECT c.team_id FROM calendars c WHERE c.id = ${asUuid("target_id")})
  WHEN 'secret' THEN (SELECT x.team_id FROM secrets x WHERE x.name = target_id)
  WHEN 'alert_channel' THEN (SELECT ch.team_id FROM alert_channels ch WHERE ch.id = ${asUuid("target_id")})
  WHEN 'group' THEN (SELECT g.team_id FROM concurrency_groups g WHERE g.name = target_id)
  END)`;
