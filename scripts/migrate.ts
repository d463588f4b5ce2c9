// `npm run migrate`: applies pending migrations (prisma/migrations, through core/db/migrate.ts) to DATABASE_URL,
// or to the embedded database (the running Vigil's, or started for this command and stopped after).
// `npm start` applies them as well; this applies them on their own, e.g. before a deploy of new console and
// worker versions against an external server.
import { StartupError } from "./lib/postgres";
import { openDatabaseForCommand } from "./lib/prepare-database";
import { printUsageIfAsked } from "../core/cli/print-usage";

const USAGE = `usage: npm run migrate
Applies pending migrations to DATABASE_URL, or to the embedded database (the running Vigil's, or started for this command).`;
printUsageIfAsked(USAGE);

const say = (line: string) => process.stdout.write(`[migrate] ${line}\n`);

async function main(): Promise<void> {
  const { embedded } = await openDatabaseForCommand(say);
  await embedded?.stop();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[migrate] failed: ${err instanceof StartupError ? err.message : ((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
