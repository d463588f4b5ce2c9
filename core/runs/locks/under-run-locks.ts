// The one-round-trip claim and outcome paths (claim/claim-free-runs.ts, finish/finish-free-runs.ts) run as SQL functions
// (migration 20261202600000) whose bodies this builds: first the locks every execution-side transaction takes, in
// the same order (lock-run-scope.ts) — the schedules of these runs that do not allow overlap in id order (FOR NO
// KEY UPDATE), then their concurrency groups in name order (FOR UPDATE), waiting for them like the locked claim —
// then the decision and its writes. A VOLATILE PL/pgSQL function's statements each take a fresh snapshot, so the
// decision sees everything committed by whoever held those locks before: it is made on current rows, as in the
// locked claim's transaction, in one call instead of a transaction of eight statements. A function (not one
// statement) because a statement's snapshot predates the locks it waits for; a static body (not EXECUTE of text)
// because its plans are cached, where EXECUTE planned the decision anew on every call (×3 the cost).
// The bodies are TypeScript constants built from the shared rules (pausedSql, startingDeadlinePassedSql), and
// the migration holds them verbatim: claim-free-runs.db.test.ts fails when they drift apart, and a change to the
// SQL then ships as a new migration replacing the functions.
// Plans (migration 20261204500000): the functions run with plan_cache_mode = force_generic_plan, so a connection
// plans each statement once instead of on every call (the plan cache kept choosing custom plans: the lock statements'
// cost depends on the array's length). For that the lock statements look their rows up as `= ANY(ARRAY(subquery))`,
// primary-key lookups whatever the batch; the generic plan of the former `IN (subquery)` scanned every schedule.
// The rows locked, and their order, are the same. The decision's plan is pinned to primary-key lookups by its
// `OFFSET 0` subqueries whichever plan is used.

/**
 * PL/pgSQL body: lock the scope of p_run_ids, then RETURN QUERY the decision (a statement yielding jsonb rows), then
 * run `after` (PL/pgSQL statements; FOUND tells whether the decision returned a row); with `setting`, that custom
 * setting is 'on' for the decision and `after`.
 */
export function underRunLocksSql(decision: string, after = "", setting?: string): string {
  const then = after ? `\n  ${after}` : "";
  if (!setting) {
    return `
BEGIN
${runLocksSql("p_run_ids")}
  RETURN QUERY ${decision};${then}
END
`;
  }
  // `setting` is 'on' while the decision runs, then back to what it was: set transaction-locally (a failed call's
  // change goes with the rollback of its savepoint or transaction). Not a SET clause of the function: only a
  // superuser may put a custom setting there, and the migrations run as the database's owner.
  return `
DECLARE
  v_setting_was text := current_setting('${setting}', true);
BEGIN
${runLocksSql("p_run_ids")}
  PERFORM set_config('${setting}', 'on', true);
  RETURN QUERY ${decision};${then}
  PERFORM set_config('${setting}', coalesce(v_setting_was, ''), true);
END
`;
}

/** PL/pgSQL statements: lock the scope of the runs in the uuid[] expression `ids`, in the engine's order. */
export function runLocksSql(ids: string): string {
  return `  PERFORM 1 FROM schedules s
    WHERE s.id = ANY(ARRAY(SELECT r.schedule_id FROM runs r WHERE r.id = ANY(${ids}))) AND s.overlap_policy <> 'allow'
    ORDER BY s.id
    FOR NO KEY UPDATE OF s;
  PERFORM 1 FROM concurrency_groups g
    WHERE g.name = ANY(ARRAY(SELECT r.concurrency_group FROM runs r WHERE r.id = ANY(${ids})))
    ORDER BY g.name
    FOR UPDATE OF g;`;
}
