// The starting-deadline rule, shared by the planner (which marks overdue occurrences missed) and the
// dispatcher's claim (which refuses to start them): a run may start only while
//   clock_timestamp() <= due_at + starting_deadline_seconds
// on the database clock, with the deadline read from the schedule row at that moment.

/**
 * SQL boolean: true when the run's starting deadline has passed. `run` and `schedule` are the aliases of
 * the runs and schedules rows in the caller's query; `now` is an SQL expression for the database time
 * (clock_timestamp(), or a parameter holding a value read from it).
 */
export function startingDeadlinePassedSql(run = "r", schedule = "s", now = "clock_timestamp()"): string {
  return `(${now} > ${run}.due_at + make_interval(secs => ${schedule}.starting_deadline_seconds))`;
}
