-- Audit page search: a trigram index over the text an operator searches (action, actor, target,
-- reason), so `q` stays fast over millions of rows. The expression must match
-- core/audit/list-audit.ts (AUDIT_SEARCH_TEXT) character for character, or the index is not used.
-- pg_trgm ships with PostgreSQL (and the embedded server); where a managed server lacks it the
-- search still works, only without the index.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXECUTE $sql$
    CREATE INDEX audit_events_search_trgm_idx ON audit_events USING gin (
      (action || ' ' || actor || ' ' || target_type || ':' || coalesce(target_id, '') || ' ' || coalesce(reason, '')) gin_trgm_ops
    )
  $sql$;
EXCEPTION WHEN undefined_file OR feature_not_supported OR insufficient_privilege THEN
  RAISE NOTICE 'pg_trgm is not available (%): audit text search runs without an index', SQLERRM;
END $$;

