// Resolves DATABASE_URL (embedded server or the given one), checks it, applies migrations.
import net from "node:net";
import pg from "pg";
import { getEnv } from "../../core/env";
import { migrate } from "../../core/db/migrate";
import { ensureDayPartitions } from "../../core/retention/ensure-partitions";
import { checkReachable, embeddedUrl, ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from "./postgres";

export async function prepareDatabase(log: (line: string) => void): Promise<{ url: string; embedded?: RunningPostgres }> {
  const env = getEnv();
  let url = env.DATABASE_URL;
  let embedded: RunningPostgres | undefined;
  if (!url) {
    const t0 = performance.now();
    embedded = await startEmbeddedPostgres({ dataDir: env.VIGIL_DATA_DIR, port: env.VIGIL_PG_PORT, say: log });
    await ensureDatabase(embedded.url("postgres"), "vigil");
    url = embedded.url("vigil");
    log(
      `embedded PostgreSQL up on 127.0.0.1:${env.VIGIL_PG_PORT} (data in ${embedded.dataDir}) in ${Math.round(performance.now() - t0)} ms`,
    );
  } else {
    log("using the PostgreSQL server from DATABASE_URL");
  }
  try {
    await applyMigrations(url, log);
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  return { url, embedded };
}

/**
 * The database a command line tool works on (npm run migrate, create-admin): DATABASE_URL, else the embedded
 * server of a Vigil that is running (it owns the data folder), else the embedded server started for the command
 * (stop `embedded` when done). Migrations are applied in every case.
 */
export async function openDatabaseForCommand(log: (line: string) => void): Promise<{ url: string; embedded?: RunningPostgres }> {
  const env = getEnv();
  if (!env.DATABASE_URL && (await portInUse(env.VIGIL_PG_PORT))) {
    const url = embeddedUrl(env.VIGIL_PG_PORT, "vigil");
    log(`using the embedded PostgreSQL of the running Vigil on 127.0.0.1:${env.VIGIL_PG_PORT}`);
    await applyMigrations(url, log);
    return { url };
  }
  return prepareDatabase(log);
}

async function applyMigrations(url: string, log: (line: string) => void): Promise<void> {
  await checkReachable(url);
  const applied = await migrate(url, { onNotice: (m) => log(`migration: ${m}`) });
  log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is current");
  // The history tables' day partitions (core/retention/): a worker's retention duty keeps them ahead, but after a
  // long stop with no worker the console must still be able to write today's events.
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await ensureDayPartitions(c, 7);
  } finally {
    await c.end();
  }
}

export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1" });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
