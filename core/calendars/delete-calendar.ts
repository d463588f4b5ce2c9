// Deleting a calendar: refused while a live schedule follows it (409 calendar_in_use naming them), so no schedule's
// fires change behind its back; links of deleted schedules go with it, and so do its shares with other teams (each
// audited as an unshare). Audited.
import type { Actor } from "../auth/roles";
import { recordAudit } from "../audit/record-audit";
import { inTransaction, type Queryable } from "../db/pool";
import { ConflictError, NotFoundError } from "../errors";
import { isUuid } from "../schedules/schedule-record";
import { dropSharesOfDeletedObject } from "../teams/team-shares";
import { calendarAuditView, getCalendarOrThrow } from "./calendar-record";

export async function deleteCalendar(
  id: string,
  actor: Actor,
  opts: { db?: Queryable; reason?: string | null } = {},
): Promise<{ id: string; name: string }> {
  if (!isUuid(id)) throw new NotFoundError("Calendar", id);
  return inTransaction({ tx: opts.db }, async (tx) => {
    // FOR UPDATE (not the edit's NO KEY UPDATE): a schedule saving a link to it waits, then finds it gone.
    await tx.query(`SELECT id FROM calendars WHERE id = $1 FOR UPDATE`, [id]);
    const calendar = await getCalendarOrThrow(tx, id);
    if (calendar.schedules.length > 0) {
      const names = calendar.schedules.map((s) => s.name);
      throw new ConflictError(
        `Calendar "${calendar.name}" is used by ${names.length === 1 ? "schedule" : "schedules"} ${names.join(", ")}; remove it from them first.`,
        "calendar_in_use",
      );
    }
    await tx.query(`DELETE FROM schedule_calendars WHERE calendar_id = $1`, [id]);
    await tx.query(`DELETE FROM calendars WHERE id = $1`, [id]);
    await dropSharesOfDeletedObject(tx, { kind: "calendar", key: id, name: calendar.name, teamId: calendar.teamId }, actor);
    await recordAudit(tx, {
      actor,
      action: "calendar.delete",
      targetType: "calendar",
      targetId: id,
      before: { ...calendarAuditView(calendar), revision: calendar.revision },
      reason: opts.reason ?? null,
    });
    return { id, name: calendar.name };
  });
}
