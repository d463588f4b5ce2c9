// A pool whose threads cannot start gives up after a bounded number of tries instead of retrying forever.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CONSECUTIVE_START_FAILURES, ThreadPool } from "./thread-pool";
import { waitFor } from "../../test/wait-for";

const quiet = pino({ level: "silent" });
let pool: ThreadPool | undefined;

afterEach(async () => {
  await pool?.stop();
  pool = undefined;
});

describe("thread pool start failures", () => {
  it("rejects start() when no thread ever becomes ready, after a bounded number of tries", async () => {
    pool = new ThreadPool(
      2,
      quiet,
      () => {},
      () => {},
      new URL("./test-threads/always-fails.ts", import.meta.url),
    );
    const t0 = performance.now();
    const err = await pool.start().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(new RegExp(`${MAX_CONSECUTIVE_START_FAILURES} threads in a row died before becoming ready`));
    expect(err?.message).toContain("this thread cannot start");
    // One pause of RESPAWN_BACKOFF_MS between tries, not forever.
    expect(performance.now() - t0).toBeLessThan(MAX_CONSECUTIVE_START_FAILURES * 1000 + 10_000);
    expect(pool.liveCount()).toBe(0);
  });

  it("calls onFatal once when replacements stop starting after the pool was running", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-thread-pool-"));
    process.env.VIGIL_TEST_THREAD_MARKER = path.join(dir, "started");
    const fatal: Error[] = [];
    try {
      pool = new ThreadPool(
        1,
        quiet,
        () => {},
        (err) => fatal.push(err),
        new URL("./test-threads/fails-after-first.ts", import.meta.url),
      );
      await pool.start();
      const first = pool.take();
      expect(first).toBeDefined();
      // The ready thread is killed (as after a timeout); every replacement fails at import.
      await pool.kill(first!);
      await waitFor("onFatal", () => fatal.length > 0, { timeoutMs: MAX_CONSECUTIVE_START_FAILURES * 1000 + 15_000 });
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.message).toContain("this thread cannot start");
      // No more tries after giving up.
      expect(pool.liveCount()).toBe(0);
    } finally {
      delete process.env.VIGIL_TEST_THREAD_MARKER;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
