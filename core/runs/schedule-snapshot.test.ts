import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEDULE_SNAPSHOT, snapshotAssignments, snapshotColumns, snapshotValues } from "./schedule-snapshot";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every non-test TypeScript source under these folders, with its text. */
function sources(dirs: string[]): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts"))
        out.push({ file: path.relative(ROOT, p), text: fs.readFileSync(p, "utf8") });
    }
  };
  for (const d of dirs) walk(path.join(ROOT, d));
  return out;
}

describe("the settings a run copies from its schedule", () => {
  it("are the handler, payload, timeout, grace, attempts and concurrency group, from the schedule's own columns", () => {
    expect(SCHEDULE_SNAPSHOT).toEqual({
      handler: "handler",
      payload: "payload",
      timeout_seconds: "timeout_seconds",
      grace_seconds: "grace_seconds",
      max_attempts: "retry_max_attempts",
      concurrency_group: "concurrency_group",
    });
    expect(snapshotColumns()).toBe("handler, payload, timeout_seconds, grace_seconds, max_attempts, concurrency_group");
    expect(snapshotValues("s")).toBe("s.handler, s.payload, s.timeout_seconds, s.grace_seconds, s.retry_max_attempts, s.concurrency_group");
    expect(snapshotValues("x", { payload: "coalesce($4::jsonb, x.payload)" })).toBe(
      "x.handler, coalesce($4::jsonb, x.payload), x.timeout_seconds, x.grace_seconds, x.retry_max_attempts, x.concurrency_group",
    );
    expect(snapshotAssignments("s")).toBe(
      "handler = s.handler, payload = s.payload, timeout_seconds = s.timeout_seconds, grace_seconds = s.grace_seconds, " +
        "max_attempts = s.retry_max_attempts, concurrency_group = s.concurrency_group",
    );
  });

  it("are written by no statement that lists them itself (every writer takes them from schedule-snapshot.ts)", () => {
    const own = sources(["core", "worker", "app"]).filter(
      ({ text }) =>
        /INSERT INTO runs\s*\([^)]*\b(max_attempts|grace_seconds)\b/i.test(text) ||
        /\bmax_attempts\s*=\s*\w+\.retry_max_attempts\b/i.test(text),
    );
    expect(own.map((s) => s.file)).toEqual([]);
  });
});
