// The schedules list's sort orders (core/schedules/list-schedules.ts), apart so the console's controls can
// import them without the database code.
export const SCHEDULE_SORTS = ["name", "next_fire", "last_state", "trouble"] as const;
export type ScheduleSort = (typeof SCHEDULE_SORTS)[number];
