// pg-boss is the executor of record: every change of a job's state is pg-boss's own statement (send, insert, fetch,
// cancel, complete, fail through its API, on Vigil's transaction where they must commit together). The exceptions
// are the take-by-key claim (worker/claim-notified-job.ts), which repeats pg-boss's fetch inside Vigil's claim
// statement, and the one-statement step (core/runs/step/run-step.ts), which repeats pg-boss's fetch and completion in
// one call; worker/pg-boss-drift.db.test.ts holds both to pg-boss's moves. This guard fails when any other source file
// of core/ or worker/ writes pgboss.job with its own SQL.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const ALLOWED = new Set(["worker/claim-notified-job.ts", "core/runs/step/run-step.ts"]);

/** A write of pg-boss's job table in SQL text: by its schema's name or the BOSS_SCHEMA constant, any case. */
const JOB_WRITE =
  /\b(?:update|insert\s+into|delete\s+from|truncate(?:\s+table)?|merge\s+into)\s+(?:only\s+)?(?:"?pgboss"?|\$\{\s*BOSS_SCHEMA\s*\})\s*\.\s*"?job\b/i;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

function jobWritesIn(text: string): string[] {
  return [...text.matchAll(new RegExp(JOB_WRITE.source, "gi"))].map((m) => m[0]);
}

describe("writes of pgboss.job", () => {
  it("recognises a write of the job table however it is spelled, and not a read", () => {
    expect(jobWritesIn("UPDATE pgboss.job SET name = $1")).toHaveLength(1);
    expect(jobWritesIn("   update ${BOSS_SCHEMA}.job j SET state = 'active'")).toHaveLength(1);
    expect(jobWritesIn(`INSERT INTO "pgboss"."job" (id) VALUES ($1)`)).toHaveLength(1);
    expect(jobWritesIn("delete from pgboss.job where id = $1")).toHaveLength(1);
    expect(jobWritesIn("WITH moved AS (\n  UPDATE\n    pgboss.job j SET name = $4")).toHaveLength(1);
    expect(jobWritesIn("SELECT * FROM pgboss.job WHERE id = $1 FOR UPDATE SKIP LOCKED")).toHaveLength(0);
    expect(jobWritesIn("UPDATE pgboss.queue SET policy = 'standard'")).toHaveLength(0);
  });

  it("only the take-by-key claim and the step write pg-boss's job table in core/ and worker/; everything else goes through pg-boss", () => {
    const files = [...sourceFiles("core"), ...sourceFiles("worker")];
    expect(files.length).toBeGreaterThan(100);
    const writers = files
      .filter((f) => jobWritesIn(fs.readFileSync(path.join(root, f), "utf8")).length > 0)
      .map((f) => f.split(path.sep).join("/"));
    expect(writers.filter((f) => !ALLOWED.has(f))).toEqual([]);
    // The exceptions are still where this test says they are (a moved claim must move the allow-list with it).
    expect(writers.sort()).toEqual([...ALLOWED].sort());
  });
});
