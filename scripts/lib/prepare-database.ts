// Resolves DATABASE_URL (embedded server or the given one), checks it, applies migrations.
import { getEnv } from "../../core/env";
import { migrate } from "../../core/db/migrate";
import { checkReachable, ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from "./postgres";

export async function prepareDatabase(log: (line: string) => void): Promise<{ url: string; embedded?: RunningPostgres }> {
  const env = getEnv();
  let url = env.DATABASE_URL;
  let embedded: RunningPostgres | undefined;
  if (!url) {
    const t0 = performance.now();
    embedded = await startEmbeddedPostgres({ dataDir: env.VIGIL_DATA_DIR, port: env.VIGIL_PG_PORT });
    await ensureDatabase(embedded.url("postgres"), "vigil");
    url = embedded.url("vigil");
    log(`embedded PostgreSQL up on 127.0.0.1:${env.VIGIL_PG_PORT} (data in ${env.VIGIL_DATA_DIR}) in ${Math.round(performance.now() - t0)} ms`);
  } else {
    log("using the PostgreSQL server from DATABASE_URL");
  }
  try {
    await checkReachable(url);
    const applied = await migrate(url);
    log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is current");
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  return { url, embedded };
}
