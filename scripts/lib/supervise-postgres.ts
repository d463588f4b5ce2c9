// `npm start` keeps the embedded PostgreSQL it started running: when the server dies (crash, OOM kill, an
// operator's kill -9) it is started again on the same data folder, where PostgreSQL's crash recovery replays
// the write-ahead log by itself. The console and the workers are not restarted: their pools and LISTEN
// connections reconnect, and the API answers 503 database_unavailable in between.
import type { RunningPostgres } from "./postgres";

/** A server that ran this long before dying was healthy: its next restart starts the backoff over. */
const HEALTHY_RUN_MS = 60_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves when supervision ends: the server stopped on purpose (opts.stopping() was true when it exited). */
export function supervisePostgres(pg: RunningPostgres, opts: { say: (line: string) => void; stopping: () => boolean }): Promise<void> {
  const { say, stopping } = opts;
  let restarts = 0;
  const watch = async () => {
    for (;;) {
      const upSince = performance.now();
      const how = await pg.exited();
      if (stopping()) return;
      const diedAt = performance.now();
      if (diedAt - upSince > HEALTHY_RUN_MS) restarts = 0;
      let delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** restarts++);
      say(
        `the embedded PostgreSQL died (${how}); restarting it on ${pg.dataDir} in ${delay / 1000} s — the API answers 503 database_unavailable until it is back`,
      );
      for (;;) {
        await sleep(delay);
        if (stopping()) return;
        try {
          await pg.restart();
          break;
        } catch (err) {
          // Backends of the dead server may still hold its shared memory for a moment: try again, more slowly.
          delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** restarts++);
          say(`the embedded PostgreSQL did not come back (${(err as Error).message}); retrying in ${delay / 1000} s`);
        }
      }
      if (stopping()) {
        await pg.stop();
        return;
      }
      say(`the embedded PostgreSQL is back (crash recovery done) ${((performance.now() - diedAt) / 1000).toFixed(1)} s after it died`);
    }
  };
  return watch().catch((err) => say(`supervising the embedded PostgreSQL failed: ${(err as Error).stack ?? err}`));
}
