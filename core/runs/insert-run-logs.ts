// Handler log lines, stored with their run and attempt (one INSERT per batch).
import type { Queryable } from "../db/pool";

export interface RunLogLine {
  runId: string;
  attempt: number;
  level: string;
  message: string;
  fields?: Record<string, unknown> | null;
  /** performance.now() when logged; stored as the database time minus its age. */
  atPerf: number;
}

export async function insertRunLogs(db: Queryable, lines: RunLogLine[], nowPerf = performance.now()): Promise<void> {
  if (lines.length === 0) return;
  await db.query(
    `INSERT INTO run_logs (run_id, attempt, level, message, fields, at)
     SELECT l.run_id, l.attempt, l.level, l.message, l.fields, clock_timestamp() - make_interval(secs => greatest(l.age_ms, 0) / 1000.0)
       FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::jsonb[], $6::float8[]) AS l(run_id, attempt, level, message, fields, age_ms)`,
    [
      lines.map((l) => l.runId),
      lines.map((l) => l.attempt),
      lines.map((l) => l.level),
      lines.map((l) => l.message),
      lines.map((l) => (l.fields ? JSON.stringify(l.fields) : null)),
      lines.map((l) => nowPerf - l.atPerf),
    ],
  );
}
