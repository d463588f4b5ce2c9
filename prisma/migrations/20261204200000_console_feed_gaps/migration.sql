-- The console change stream's blind spots (issue 17 gaps).
--
-- 1. Credentials revoked: a NOTIFY on vigil_auth_changed whenever a session ends (sign-out here or elsewhere, an
--    admin ending a user's sessions, a password reset, a user deleted), an account is disabled or its role changes,
--    or an API token is revoked or changed. The console's change feed LISTENs and every open change stream checks
--    its credentials again, so a revoked session stops hearing within a second instead of at the stream's end
--    (up to 5 min). Per statement and only on these rare writes: nothing is added to the run lifecycle. A NOTIFY is
--    delivered at commit, so the re-check sees the revoking transaction's result.
-- 2. TRUNCATE runs: the read models derived from runs (the fleet minutes and their deltas, the schedules list's
--    hourly outcomes and last runs) kept counting the runs a TRUNCATE removed (no row trigger fires for it). A
--    statement-level TRUNCATE trigger empties them too: with no runs, every count they hold is zero. It also bumps
--    the console version, so the console's conditional reads (ETag) and its change stream see the change.

CREATE FUNCTION vigil_notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vigil_auth_changed', '');
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_auth_changed AFTER DELETE ON "sessions"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_notify_auth_changed();
CREATE TRIGGER users_auth_changed AFTER UPDATE OF "role", "disabled_at" OR DELETE ON "users"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_notify_auth_changed();
CREATE TRIGGER api_tokens_auth_changed AFTER UPDATE OF "revoked_at", "expires_at", "role" OR DELETE ON "api_tokens"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_notify_auth_changed();

CREATE FUNCTION vigil_runs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE fleet_run_minutes, fleet_run_minute_deltas, fleet_attention_minutes, fleet_attention_minute_deltas,
           schedule_hourly_outcomes, schedule_last_runs;
  PERFORM nextval('vigil_console_version');
  RETURN NULL;
END $$;

CREATE TRIGGER runs_truncate AFTER TRUNCATE ON "runs"
    FOR EACH STATEMENT EXECUTE FUNCTION vigil_runs_truncated();
