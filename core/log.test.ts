// Lines about a run carry runId, scheduleId, attempt and workerId exactly once, whether the worker's logger already
// binds workerId or not, and whether the line comes from a child logger or from runLogBindings.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { runLogBindings, runLogger } from "./log";

function capture(bound: Record<string, unknown>): { base: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const base = pino({ base: null }, { write: (l: string) => void lines.push(l.trim()) }).child(bound);
  return { base, lines };
}

const run = { runId: "r1", scheduleId: "s1", attempt: 2, workerId: "w1" };

describe("run log lines", () => {
  for (const bound of [{}, { workerId: "w1" }]) {
    it(`carry the run's fields once${"workerId" in bound ? " when the base logger binds workerId" : ""}`, () => {
      const { base, lines } = capture(bound);
      runLogger(base, run).info({ outcome: "succeeded" }, "via child");
      base.info({ ...runLogBindings(base, run), outcome: "succeeded" }, "via bindings");
      base.info({ ...runLogBindings(base, run) }, "again");
      expect(lines).toHaveLength(3);
      for (const l of lines) {
        expect(l.match(/"workerId"/g)).toHaveLength(1);
        expect(JSON.parse(l)).toMatchObject({ runId: "r1", scheduleId: "s1", attempt: 2, workerId: "w1" });
      }
    });
  }
});
