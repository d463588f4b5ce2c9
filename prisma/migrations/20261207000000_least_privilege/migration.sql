-- Least privilege (docs/how-to/database-roles.md): the console and the worker connect as roles that cannot write
-- audit_anchors, nor delete sessions, nor create tables. The few things they still need done there go through
-- these functions, which run as their owner (SECURITY DEFINER) and do exactly one thing each.

-- Records the chain head as published. The caller says which head it published; the function computes the head
-- itself and records it only when they agree, so no caller can record a head the chain does not have.
CREATE FUNCTION vigil_record_audit_anchor(p_seq bigint, p_hash text, p_count bigint, p_at timestamptz, p_by text, p_sinks text[])
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  h_id bigint;
  h_hash text;
  h_count bigint;
BEGIN
  SELECT id, hash INTO h_id, h_hash FROM audit_events ORDER BY id DESC LIMIT 1;
  SELECT count(*) INTO h_count FROM audit_events;
  IF h_id IS DISTINCT FROM p_seq OR h_hash IS DISTINCT FROM p_hash OR h_count IS DISTINCT FROM p_count THEN
    RETURN false;
  END IF;
  INSERT INTO audit_anchors (audit_id, hash, count, published_at, published_by, sinks)
  VALUES (h_id, h_hash, h_count, LEAST(COALESCE(p_at, clock_timestamp()), clock_timestamp()), left(p_by, 200), p_sinks);
  RETURN true;
END $$;
REVOKE ALL ON FUNCTION vigil_record_audit_anchor(bigint, text, bigint, timestamptz, text, text[]) FROM PUBLIC;

-- Retention of expired sign-in sessions by a worker, which may not otherwise delete sessions.
CREATE FUNCTION vigil_expire_sessions(p_limit integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < now() LIMIT p_limit);
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
REVOKE ALL ON FUNCTION vigil_expire_sessions(integer) FROM PUBLIC;

-- Day partitions are created by the owner (no application role may create tables) and handed to whoever owns the
-- partitioned table, so the worker's retention (a member of that role) can detach and drop them later.
CREATE OR REPLACE FUNCTION vigil_ensure_day_partition(parent text, d date) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  part text := parent || '_p' || to_char(d, 'YYYYMMDD');
  parent_owner text;
BEGIN
  IF parent NOT IN ('run_events', 'run_logs') THEN
    RAISE EXCEPTION 'vigil_ensure_day_partition: % has no day partitions', parent;
  END IF;
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    RETURN false;
  END IF;
  -- Two processes creating the same day at the same moment (workers, npm start's own check) take turns; the second
  -- finds the table once the first has committed. The handler below stays for a creator that has not committed yet.
  PERFORM pg_advisory_xact_lock(hashtext('vigil_ensure_day_partition'), hashtext(part));
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    RETURN false;
  END IF;
  SELECT quote_ident(r.rolname) INTO parent_owner FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = format('%I', parent)::regclass;
  BEGIN
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
    IF parent_owner <> quote_ident(current_user) THEN
      -- The new owner must be allowed to create in the schema; it is, only inside this transaction, so the
      -- roles that act as it (the worker) never can themselves.
      EXECUTE format('GRANT CREATE ON SCHEMA public TO %s', parent_owner);
      EXECUTE format('ALTER TABLE %I OWNER TO %s', part, parent_owner);
      EXECUTE format('REVOKE CREATE ON SCHEMA public FROM %s', parent_owner);
    END IF;
    -- The CHECK lets ATTACH skip its validation scan (and documents the slice).
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (day >= %L AND day < %L)', part, part || '_day', d, d + 1);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, d, d + 1);
  EXCEPTION WHEN duplicate_table OR duplicate_object OR unique_violation THEN
    -- Another process (a second worker, npm start's own check) created it at the same moment.
    RETURN false;
  END;
  RETURN true;
END $$;

-- Ends the database sessions a run's handler opened (application_name vigil-run-<run id>): the console cancelling
-- a run ends sessions of the worker's role, which it may not signal itself. Runs as the owner, which holds
-- pg_signal_backend; it signals nothing but sessions tagged as a run's.
CREATE FUNCTION vigil_terminate_run_sessions(p_tag text, p_wait_ms bigint) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, p_wait_ms))::int
    FROM pg_stat_activity
   WHERE p_tag ~ '^vigil-run-[0-9a-f-]+$' AND application_name = p_tag AND pid <> pg_backend_pid()
$$;
REVOKE ALL ON FUNCTION vigil_terminate_run_sessions(text, bigint) FROM PUBLIC;
