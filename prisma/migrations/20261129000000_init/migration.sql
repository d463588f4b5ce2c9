-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ip" TEXT,
    "user_agent" TEXT,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "login_attempts" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "login_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "handler" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "trigger" JSONB NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "paused_at" TIMESTAMPTZ(3),
    "paused_by" TEXT,
    "pause_reason" TEXT,
    "paused_until" TIMESTAMPTZ(3),
    "overlap_policy" TEXT NOT NULL DEFAULT 'skip',
    "misfire_policy" TEXT NOT NULL DEFAULT 'run_once',
    "catch_up_limit" INTEGER NOT NULL DEFAULT 10,
    "starting_deadline_seconds" INTEGER NOT NULL DEFAULT 60,
    "timeout_seconds" INTEGER NOT NULL DEFAULT 300,
    "grace_seconds" INTEGER NOT NULL DEFAULT 5,
    "retry_max_attempts" INTEGER NOT NULL DEFAULT 1,
    "retry_base_seconds" INTEGER NOT NULL DEFAULT 2,
    "retry_max_seconds" INTEGER NOT NULL DEFAULT 300,
    "concurrency_group" TEXT,
    "start_jitter_ms" INTEGER NOT NULL DEFAULT 0,
    "expect_records_min" INTEGER,
    "lateness_p95_slo_ms" INTEGER,
    "lateness_max_ms" INTEGER,
    "completion_deadline_seconds" INTEGER,
    "failure_alert_threshold" INTEGER,
    "webhook_url" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "planned_through" TIMESTAMPTZ(3),
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "concurrency_groups" (
    "name" TEXT NOT NULL,
    "max_running" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "concurrency_groups_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "schedule_id" UUID NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'scheduled',
    "planned_at" TIMESTAMPTZ(3) NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'planned',
    "wait_reason" TEXT,
    "handler" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "timeout_seconds" INTEGER NOT NULL,
    "grace_seconds" INTEGER NOT NULL,
    "max_attempts" INTEGER NOT NULL DEFAULT 1,
    "concurrency_group" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "worker_id" TEXT,
    "enqueued_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "heartbeat_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "lateness_ms" INTEGER,
    "duration_ms" INTEGER,
    "records" INTEGER,
    "result" JSONB,
    "error" TEXT,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "cancel_requested_by" TEXT,
    "cancel_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "run_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "worker_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,
    "records" INTEGER,
    "error" TEXT,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_events" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "type" TEXT NOT NULL,
    "attempt" INTEGER,
    "worker_id" TEXT,
    "message" TEXT NOT NULL DEFAULT '',
    "data" JSONB,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_logs" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "fields" JSONB,

    CONSTRAINT "run_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "once_markers" (
    "key" TEXT NOT NULL,
    "run_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "once_markers_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ledger_accounts" (
    "id" TEXT NOT NULL,
    "balance" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "from_account" TEXT NOT NULL,
    "to_account" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "run_id" UUID,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "reason" TEXT,
    "ip" TEXT,
    "user_agent" TEXT,
    "prev_hash" TEXT NOT NULL DEFAULT '',
    "hash" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "version" TEXT NOT NULL,
    "capacity" INTEGER NOT NULL DEFAULT 4,
    "state" TEXT NOT NULL DEFAULT 'running',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "stopped_at" TIMESTAMPTZ(3),
    "planner_lag_ms" INTEGER,
    "info" JSONB,

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" TEXT NOT NULL,
    "schedule_id" UUID,
    "run_id" UUID,
    "dedupe_key" TEXT NOT NULL,
    "severity" TEXT NOT NULL DEFAULT 'warning',
    "message" TEXT NOT NULL,
    "data" JSONB,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "resolved_at" TIMESTAMPTZ(3),
    "acknowledged_at" TIMESTAMPTZ(3),
    "acknowledged_by" TEXT,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "alert_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "last_status" INTEGER,
    "last_error" TEXT,
    "log" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "login_attempts_email_at_idx" ON "login_attempts"("email", "at");

-- CreateIndex
CREATE INDEX "login_attempts_ip_at_idx" ON "login_attempts"("ip", "at");

-- CreateIndex
CREATE INDEX "schedules_enabled_deleted_at_idx" ON "schedules"("enabled", "deleted_at");

-- CreateIndex
CREATE UNIQUE INDEX "runs_idempotency_key_key" ON "runs"("idempotency_key");

-- CreateIndex
CREATE INDEX "runs_state_due_at_idx" ON "runs"("state", "due_at");

-- CreateIndex
CREATE INDEX "runs_schedule_id_planned_at_idx" ON "runs"("schedule_id", "planned_at");

-- CreateIndex
CREATE INDEX "runs_planned_at_idx" ON "runs"("planned_at");

-- CreateIndex
CREATE UNIQUE INDEX "attempts_run_id_number_key" ON "attempts"("run_id", "number");

-- CreateIndex
CREATE INDEX "run_events_run_id_id_idx" ON "run_events"("run_id", "id");

-- CreateIndex
CREATE INDEX "run_logs_run_id_id_idx" ON "run_logs"("run_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_idempotency_key_key" ON "ledger_entries"("idempotency_key");

-- CreateIndex
CREATE INDEX "audit_events_at_id_idx" ON "audit_events"("at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_actor_id_idx" ON "audit_events"("actor", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_action_id_idx" ON "audit_events"("action", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_target_type_target_id_id_idx" ON "audit_events"("target_type", "target_id", "id" DESC);

-- CreateIndex
CREATE INDEX "alerts_resolved_at_opened_at_idx" ON "alerts"("resolved_at", "opened_at");

-- CreateIndex
CREATE INDEX "alert_deliveries_state_next_attempt_at_idx" ON "alert_deliveries"("state", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_logs" ADD CONSTRAINT "run_logs_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- ===== Rules Prisma cannot express =====

-- Names are unique among live schedules; a deleted schedule frees its name.
CREATE UNIQUE INDEX "schedules_name_live_key" ON "schedules"("name") WHERE "deleted_at" IS NULL;
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_name_slug" CHECK ("name" ~ '^[a-z0-9][a-z0-9._-]{0,79}$');
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_overlap_policy" CHECK ("overlap_policy" IN ('skip', 'buffer_one', 'allow', 'cancel_running'));
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_misfire_policy" CHECK ("misfire_policy" IN ('skip', 'run_once', 'catch_up'));
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_positive_limits" CHECK (
  "timeout_seconds" > 0 AND "grace_seconds" >= 0 AND "retry_max_attempts" >= 1 AND "catch_up_limit" >= 0
  AND "starting_deadline_seconds" > 0 AND "start_jitter_ms" >= 0);

-- One occurrence per planned firing: a second planner inserting the same firing is a no-op.
-- Manual triggers and backfills carry their own idempotency keys (runs_idempotency_key_key).
CREATE UNIQUE INDEX "runs_schedule_planned_key" ON "runs"("schedule_id", "planned_at") WHERE "kind" = 'scheduled';
ALTER TABLE "runs" ADD CONSTRAINT "runs_kind" CHECK ("kind" IN ('scheduled', 'manual', 'backfill'));
ALTER TABLE "runs" ADD CONSTRAINT "runs_state" CHECK ("state" IN (
  'planned', 'queued', 'running', 'retrying', 'succeeded', 'failed', 'timed_out', 'cancelled',
  'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie'));
CREATE INDEX "runs_active_idx" ON "runs"("schedule_id") WHERE "state" IN ('queued', 'running', 'retrying');
CREATE INDEX "runs_running_idx" ON "runs"("worker_id") WHERE "state" = 'running';
CREATE INDEX "runs_group_running_idx" ON "runs"("concurrency_group") WHERE "state" = 'running';

ALTER TABLE "users" ADD CONSTRAINT "users_role" CHECK ("role" IN ('viewer', 'operator', 'admin'));
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_role" CHECK ("role" IN ('viewer', 'operator', 'admin'));
ALTER TABLE "concurrency_groups" ADD CONSTRAINT "concurrency_groups_positive" CHECK ("max_running" >= 1);
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_positive" CHECK ("amount" > 0);

-- An alert is raised once: at most one open alert per dedupe key, however many workers evaluate.
CREATE UNIQUE INDEX "alerts_open_dedupe_key" ON "alerts"("dedupe_key") WHERE "resolved_at" IS NULL;

-- ===== Audit trail: append-only and hash-chained =====
-- Each row's hash covers the previous row's hash and its own content, so an edit made behind
-- the database's back (triggers disabled, a restored file) breaks the chain at that row.
CREATE FUNCTION vigil_audit_hash(e "audit_events") RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(concat_ws(chr(31),
    e.id::text,
    to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS'),
    e.actor_type, coalesce(e.actor_id, chr(30)), e.actor, e.action, e.target_type, coalesce(e.target_id, chr(30)),
    coalesce(e.before::text, chr(30)), coalesce(e.after::text, chr(30)), coalesce(e.reason, chr(30)),
    coalesce(e.ip, chr(30)), coalesce(e.user_agent, chr(30)), e.prev_hash), 'UTF8')), 'hex')
$$;

CREATE FUNCTION vigil_audit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_hash text;
BEGIN
  -- Serialise writers so ids (taken after the lock) follow the order of the chain.
  PERFORM pg_advisory_xact_lock(746345);
  NEW.id := nextval(pg_get_serial_sequence('audit_events', 'id'));
  NEW.at := date_trunc('milliseconds', clock_timestamp());
  SELECT hash INTO last_hash FROM audit_events ORDER BY id DESC LIMIT 1;
  NEW.prev_hash := coalesce(last_hash, repeat('0', 64));
  NEW.hash := vigil_audit_hash(NEW);
  RETURN NEW;
END $$;

CREATE TRIGGER audit_events_chain BEFORE INSERT ON "audit_events" FOR EACH ROW EXECUTE FUNCTION vigil_audit_chain();

CREATE FUNCTION vigil_audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON "audit_events" FOR EACH ROW EXECUTE FUNCTION vigil_audit_refuse();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON "audit_events" FOR EACH STATEMENT EXECUTE FUNCTION vigil_audit_refuse();

-- Walks the chain in id order; returns the first row whose link or content does not match.
CREATE FUNCTION vigil_audit_verify() RETURNS TABLE(checked bigint, broken_id bigint, problem text) LANGUAGE plpgsql STABLE AS $$
DECLARE
  r audit_events;
  expected_prev text := repeat('0', 64);
  n bigint := 0;
BEGIN
  FOR r IN SELECT * FROM audit_events ORDER BY id LOOP
    n := n + 1;
    IF r.prev_hash <> expected_prev THEN
      RETURN QUERY SELECT n, r.id, 'prev_hash does not match the previous row''s hash'::text; RETURN;
    END IF;
    IF r.hash <> vigil_audit_hash(r) THEN
      RETURN QUERY SELECT n, r.id, 'content does not match its hash'::text; RETURN;
    END IF;
    expected_prev := r.hash;
  END LOOP;
  RETURN QUERY SELECT n, NULL::bigint, NULL::text;
END $$;
