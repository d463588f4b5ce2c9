// The console's own pg-boss client, for the few operator actions that must put a run's job on the queue in
// the same transaction as the run's state change (a re-run: core/runs/operate/rerun-run.ts). Started with the
// console (scripts/console-server.ts warms it, so an operator's first trigger does not wait for pg-boss to start)
// or else on first use, without supervision (the workers maintain the queues) and with a small pool; one
// per console process — held on globalThis, because the console server and the Next.js route bundles each load
// their own copy of this module in the one process.
import type { PgBoss } from "pg-boss";
import { requireDatabaseUrl } from "../env";
import { getLogger } from "../log";
import { startBoss } from "./boss";

const holder = globalThis as { [key: symbol]: Promise<PgBoss> | null | undefined };
const KEY = Symbol.for("vigil.console-boss");

export function getConsoleBoss(): Promise<PgBoss> {
  let starting = holder[KEY];
  if (!starting) {
    starting = startBoss({ connectionString: requireDatabaseUrl(), log: getLogger(), max: 2, supervise: false }).catch((err) => {
      if (holder[KEY] === starting) holder[KEY] = null;
      throw err;
    });
    holder[KEY] = starting;
  }
  return starting;
}

/** Stops it (tests, shutdown); the next getConsoleBoss starts a new one. */
export async function stopConsoleBoss(): Promise<void> {
  const s = holder[KEY];
  holder[KEY] = null;
  if (s) await (await s.catch(() => null))?.stop({ graceful: false, close: true });
}
