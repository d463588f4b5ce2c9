-- Start-rate limit of a concurrency group: at most max_starts attempts start in any sliding window of
-- per_seconds seconds, across all workers (core/runs/claim/start-rate-limit.ts). recent_starts keeps the
-- group's last max_starts recorded start times (attempts.started_at), written under the group row lock
-- by the claim that started them.
ALTER TABLE "concurrency_groups" ADD COLUMN "max_starts" INTEGER;
ALTER TABLE "concurrency_groups" ADD COLUMN "per_seconds" INTEGER;
ALTER TABLE "concurrency_groups" ADD COLUMN "recent_starts" TIMESTAMPTZ(3)[] NOT NULL DEFAULT '{}';
ALTER TABLE "concurrency_groups" ADD CONSTRAINT "concurrency_groups_start_rate" CHECK (
  ("max_starts" IS NULL AND "per_seconds" IS NULL)
  OR ("max_starts" BETWEEN 1 AND 10000 AND "per_seconds" BETWEEN 1 AND 86400));
