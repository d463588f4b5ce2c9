// Readiness: the database answers, every migration in the repository is applied, and at least one
// worker heartbeats. Each part is only up or down: the health endpoint is public.
import type pg from "pg";
import { pendingMigrations } from "../db/migrate";
import { countLiveWorkers } from "../workers/list-workers";

export type UpDown = "up" | "down";

export interface Readiness {
  ready: boolean;
  database: UpDown;
  migrations: UpDown;
  worker: UpDown;
}

/** A database that does not answer within this long counts as down (an unreachable host would hang). */
export const READINESS_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export async function checkReadiness(pool: pg.Pool, deadAfterMs: number, onError: (err: unknown) => void): Promise<Readiness> {
  const r: Readiness = { ready: false, database: "down", migrations: "down", worker: "down" };
  try {
    await withTimeout(pool.query("SELECT 1"), READINESS_TIMEOUT_MS);
    r.database = "up";
    const [pending, live] = await withTimeout(
      Promise.all([pendingMigrations(pool), countLiveWorkers(pool, deadAfterMs)]),
      READINESS_TIMEOUT_MS,
    );
    r.migrations = pending.length === 0 ? "up" : "down";
    r.worker = live > 0 ? "up" : "down";
  } catch (err) {
    onError(err);
  }
  r.ready = r.database === "up" && r.migrations === "up" && r.worker === "up";
  return r;
}
