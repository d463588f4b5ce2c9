-- Audit anchors (issue 13, item 7): the chain heads a worker published outside the database (log line, file,
-- webhook). The real proof is the copy outside; this table only remembers what was published, so a worker
-- publishes a head once and the console can show the last anchor. It is not append-only on purpose: someone
-- who can truncate the audit trail can empty it too, which is why verification prefers the anchor file.
CREATE TABLE "audit_anchors" (
  "id" BIGSERIAL PRIMARY KEY,
  "audit_id" BIGINT NOT NULL,
  "hash" TEXT NOT NULL,
  "count" BIGINT NOT NULL,
  "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
  "published_by" TEXT NOT NULL,
  "sinks" TEXT[] NOT NULL DEFAULT '{}'
);
