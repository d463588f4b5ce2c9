// Export: every live schedule (or those with all the given tags / the given names) as a schedules document.
// A viewer's export has credential-looking payload values masked, like every other answer to a viewer: such a value
// is named in the header and `masked`, and apply refuses it (naming the schedule and field) rather than store it.
import type { Role } from "../../auth/roles";
import { type Queryable } from "../../db/pool";
import { MASKED, payloadForRole } from "../../secrets/mask-credentials";
import { SCHEDULE_COLUMNS, toSchedule, type ScheduleRow } from "../schedule-record";
import { DOCUMENT_VERSION, entryFromSchedule, renderDocument, type SchedulesDocument } from "./schedules-document";

export interface ExportFilter {
  /** Only these teams' schedules (core/teams/team-access.ts visibleTeamIds); null or absent: every team's. */
  teamIds?: readonly string[] | null;
  /** The role each schedule is shown with (a viewer of its team sees credential-looking values masked); default: role. */
  roleFor?: (teamId: string) => Role;
  tags?: string[];
  names?: string[];
}

export interface ExportResult {
  document: SchedulesDocument;
  /** "schedules.<name>.payload.<path>" of each value masked for the caller's role. */
  masked: string[];
}

export async function exportSchedules(db: Queryable, role: Role, filter: ExportFilter = {}): Promise<ExportResult> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s
      WHERE s.deleted_at IS NULL
        AND ($1::text[] IS NULL OR s.tags @> $1::text[])
        AND ($2::text[] IS NULL OR s.name = ANY($2::text[]))
        AND ($3::uuid[] IS NULL OR s.team_id = ANY($3::uuid[]))
      ORDER BY s.name`,
    [filter.tags?.length ? filter.tags : null, filter.names?.length ? filter.names : null, filter.teamIds ? [...filter.teamIds] : null],
  );
  const schedules: SchedulesDocument["schedules"] = {};
  const masked: string[] = [];
  for (const s of rows.map(toSchedule)) {
    const payload = payloadForRole(filter.roleFor ? filter.roleFor(s.teamId) : role, s.payload);
    masked.push(...maskedPaths(payload).map((p) => `schedules.${s.name}.payload${p ? `.${p}` : ""}`));
    schedules[s.name] = entryFromSchedule({ ...s, payload });
  }
  return { document: { version: DOCUMENT_VERSION, schedules }, masked };
}

export function renderExport(r: ExportResult, format: "yaml" | "json"): string {
  const notes = r.masked.length
    ? [`MASKED for your role (apply refuses these until a real value or a {$secret: NAME} replaces them): ${r.masked.join(", ")}`]
    : [];
  return renderDocument(r.document, format, notes);
}

export function maskedPaths(v: unknown, path: string[] = []): string[] {
  if (v === MASKED) return [path.join(".")];
  if (Array.isArray(v)) return v.flatMap((x, i) => maskedPaths(x, [...path, String(i)]));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => maskedPaths(x, [...path, k]));
  return [];
}
