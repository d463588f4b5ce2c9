// The console's own pg-boss client, for the few operator actions that must put a run's job on the queue in
// the same transaction as the run's state change (a re-run: core/runs/operate/rerun-run.ts). Started on first use,
// without supervision (the workers maintain the queues) and with a small pool; one per console process.
import type { PgBoss } from "pg-boss";
import { requireDatabaseUrl } from "../env";
import { getLogger } from "../log";
import { startBoss } from "./boss";

let starting: Promise<PgBoss> | null = null;

export function getConsoleBoss(): Promise<PgBoss> {
  if (!starting) {
    starting = startBoss({ connectionString: requireDatabaseUrl(), log: getLogger(), max: 2, supervise: false }).catch((err) => {
      starting = null;
      throw err;
    });
  }
  return starting;
}

/** Stops it (tests, shutdown); the next getConsoleBoss starts a new one. */
export async function stopConsoleBoss(): Promise<void> {
  const s = starting;
  starting = null;
  if (s) await (await s.catch(() => null))?.stop({ graceful: false, close: true });
}
