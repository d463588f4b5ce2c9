// What the audit trail can be filtered by: one schema for the list, the CSV export and the page.
import { z } from "zod";

// Query strings arrive as "" for an empty form field: that means "no filter", not "match empty".
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

export const auditFilterShape = {
  actor: optional(z.string().trim().min(1).max(254, "Use at most 254 characters.")),
  action: optional(z.string().trim().min(1).max(100, "Use at most 100 characters.")),
  /** `schedule` (every schedule) or `schedule:<id>` (one of them); likewise run:, user:, token:. */
  target: optional(
    z
      .string()
      .trim()
      .max(300, "Use at most 300 characters.")
      .regex(/^[a-z_]+(:.+)?$/, "Write the target as type or type:id, e.g. schedule:3f2c… or run:…"),
  ),
  from: optional(z.iso.datetime({ offset: true, message: "Give an ISO time, e.g. 2026-11-29T10:00:00Z." })),
  to: optional(z.iso.datetime({ offset: true, message: "Give an ISO time, e.g. 2026-11-29T12:00:00Z." })),
  q: optional(z.string().trim().min(3, "Search for at least 3 characters.").max(200, "Use at most 200 characters.")),
  /** One of the caller's teams (the console's team switcher): the route narrows to it (core/teams/team-access.ts narrowTeams). */
  team: optional(z.uuid({ error: "team must be a team id" })),
};

const fromBeforeTo = (f: { from?: string; to?: string }) => !f.from || !f.to || new Date(f.from) <= new Date(f.to);
const fromBeforeToError = { message: "The start of the range is after its end.", path: ["from"] };

export const auditFilterSchema = z.object(auditFilterShape).strict().refine(fromBeforeTo, fromBeforeToError);
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const AUDIT_PAGE_MAX = 200;

export const auditListQuerySchema = z
  .object({
    ...auditFilterShape,
    cursor: optional(z.string().regex(/^\d{1,18}$/, "The cursor is the id of the last row you saw.")),
    limit: optional(z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX, `At most ${AUDIT_PAGE_MAX} rows per page.`)),
  })
  .strict()
  .refine(fromBeforeTo, fromBeforeToError);
export type AuditListQuery = z.infer<typeof auditListQuerySchema>;

export function parseTarget(target: string): { type: string; id?: string } {
  const i = target.indexOf(":");
  return i < 0 ? { type: target } : { type: target.slice(0, i), id: target.slice(i + 1) };
}
