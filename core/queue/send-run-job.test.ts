import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jobIdFor } from "./job-id";
import { duePriority, OPERATOR_PRIORITY, runJobOptions } from "./send-run-job";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("runJobOptions (the pg-boss options of every run job)", () => {
  const run = { runId: "4f1c2a9e-8d3b-4c5a-9e7f-1a2b3c4d5e6f", attempt: 2, handler: "demo.noop", timeoutSeconds: 300, graceSeconds: 30 };

  it("expires the job 60 s past the run's timeout and grace, never retries it in pg-boss, and starts it when due", () => {
    const dueAt = new Date("2026-12-07T06:00:00.000Z");
    expect(runJobOptions({ ...run, dueAt, wake: 3 })).toEqual({
      id: jobIdFor(run.runId, 2, 3),
      data: { runId: run.runId, attempt: 2 },
      startAfter: dueAt,
      priority: duePriority(dueAt),
      expireInSeconds: 390,
      retryLimit: 0,
    });
  });

  it("leaves the start to the database's clock for a job inserted with its run, at the caller's priority", () => {
    const o = runJobOptions({ ...run, dueAt: null, priority: OPERATOR_PRIORITY });
    expect(o).not.toHaveProperty("startAfter");
    expect(o).toMatchObject({ id: jobIdFor(run.runId, 2, 0), priority: OPERATOR_PRIORITY, expireInSeconds: 390 });
  });

  it("is the only place that sets a job's expiry", () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && /expireInSeconds/.test(fs.readFileSync(p, "utf8")))
          hits.push(path.relative(ROOT, p));
      }
    };
    for (const d of ["core", "worker", "app"]) walk(path.join(ROOT, d));
    expect(hits).toEqual(["core/queue/send-run-job.ts"]);
  });
});
