// `npm run restore -- file [--force] [--secret-key-file path]`: puts a backup made by `npm run backup` back.
// Embedded database: into VIGIL_DATA_DIR (stop Vigil first), refusing a folder that already holds a database
// unless --force (which keeps the old folder beside it); the restored cluster is started once and checked.
// DATABASE_URL: pg_restore into that database, refusing a non-empty one unless --force (then the schemas the dump holds are
// dropped and restored; pg_restore --clean cannot replace partitioned tables), then the audit chain is verified.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { verifyAudit } from "../core/audit/verify-audit";
import { getEnv } from "../core/env";
import { StartupError } from "./lib/postgres";
import { restoreEmbeddedCluster, RestoreRefused } from "./lib/restore-backup";
import { printUsageIfAsked } from "../core/cli/print-usage";

const USAGE = `usage: npm run restore -- <backup file> [--force] [--secret-key-file FILE]
Puts a backup made by npm run backup back: the embedded data folder, or the database in DATABASE_URL.
--force replaces what is there (the old embedded folder is kept beside it).`;
printUsageIfAsked(USAGE);

const say = (line: string) => process.stdout.write(`[restore] ${line}\n`);

/**
 * The schemas a dump holds (pg-boss's and Vigil's), plus public, which a dump does not list as its own. --force drops
 * these and nothing else before restoring: pg_restore's own --clean cannot replace partitioned tables (it tries to
 * drop a partition's inherited primary key and stops).
 */
function dumpSchemas(file: string): string[] | null {
  const r = spawnSync("pg_restore", ["--list", file], { encoding: "utf8" });
  if (r.error || r.status !== 0) return null;
  const names = new Set(["public"]);
  for (const m of r.stdout.matchAll(/^\d+; \d+ \d+ SCHEMA - (\S+) /gm)) names.add(m[1]!);
  return [...names];
}

async function restoreExternal(url: string, file: string, force: boolean): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    if (rows[0]!.n > 0 && !force) {
      say(
        `Not restoring: the database in DATABASE_URL is not empty (${rows[0]!.n} tables). Restore into a new, empty database, or add --force to replace its objects.`,
      );
      return 2;
    }
    const schemas = dumpSchemas(file);
    if (!schemas) {
      say(`pg_restore cannot read ${file} (is pg_restore on PATH, and is this a dump made by npm run backup?)`);
      return 2;
    }
    if (rows[0]!.n > 0) {
      say(`--force: dropping the schemas the backup replaces (${schemas.join(", ")}) before restoring`);
      await client.query("BEGIN");
      for (const name of schemas) await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(name)} CASCADE`);
      await client.query("CREATE SCHEMA public");
      await client.query("COMMIT");
    }
    const r = spawnSync("pg_restore", ["--no-owner", "--exit-on-error", `--dbname=${url}`, file], { stdio: "inherit" });
    if (r.status !== 0) {
      say("pg_restore failed (see above)");
      return 1;
    }
    const audit = await verifyAudit(client);
    if (!audit.ok) {
      say(`restored, but the audit chain does not verify: row ${audit.brokenId}: ${audit.problem}`);
      return 1;
    }
    say(`done: audit chain intact (${audit.checked} rows)`);
    return 0;
  } finally {
    await client.end();
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { force: { type: "boolean", default: false }, "secret-key-file": { type: "string" } },
  });
  if (positionals.length !== 1) {
    say("usage: npm run restore -- <backup file> [--force] [--secret-key-file path]");
    return 2;
  }
  const file = path.resolve(positionals[0]!);
  const env = getEnv();
  if (env.DATABASE_URL) return restoreExternal(env.DATABASE_URL, file, values.force);
  try {
    const r = await restoreEmbeddedCluster({
      file,
      dataDir: env.VIGIL_DATA_DIR,
      force: values.force,
      secretKeyFile: values["secret-key-file"],
      say,
    });
    const want = r.manifest.counts;
    const got = r.restored;
    say(`restored ${got.schedules} schedules, ${got.runs} runs, ${got.auditEvents} audit rows into ${r.dataDir}`);
    let ok = true;
    if (want && (want.schedules !== got.schedules || want.runs !== got.runs || want.auditEvents !== got.auditEvents)) {
      say(`MISMATCH: the backup recorded ${want.schedules} schedules, ${want.runs} runs, ${want.auditEvents} audit rows`);
      ok = false;
    } else if (want) say("the counts match the backup's");
    say(r.auditOk ? "audit chain intact" : `AUDIT CHAIN BROKEN at ${r.auditProblem}`);
    if (r.secretsWithoutKey > 0)
      say(
        `WARNING: the database holds ${r.secretsWithoutKey} secrets but no key is in place: put the old key in ${path.join(r.dataDir, "vigil-secret-key")} (or --secret-key-file), or set VIGIL_SECRET_KEY, before npm start`,
      );
    if (ok && r.auditOk) say("npm start will use it");
    return ok && r.auditOk ? 0 : 1;
  } catch (err) {
    if (err instanceof RestoreRefused || err instanceof StartupError) {
      say(err.message);
      return 2;
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[restore] failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
