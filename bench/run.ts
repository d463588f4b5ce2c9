// `npm run bench`: runs every bench/*.bench.ts (or the ones named on the command line, e.g.
// `npm run bench -- backfill`) one after another, each in its own process (tsx) against its own embedded
// PostgreSQL (migrated template, cloned database), stopped afterwards. A bench that starts its own server
// (it calls startTestPostgres, so it also runs alone with `npx tsx bench/x.bench.ts`) is run as is; any
// other gets one from this runner through DATABASE_URL. Benchmarks print figures; this runner only reports
// whether each one completed, and exits non-zero if one did not.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cloneTemplate, startTestPostgres } from "../test/postgres-for-tests";

const dir = path.dirname(new URL(import.meta.url).pathname);
const wanted = process.argv.slice(2);
const benches = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

if (benches.length === 0) {
  console.error(`No benchmark matches ${wanted.join(", ") || "bench/*.bench.ts"}.`);
  process.exit(1);
}

function runBench(file: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(dir, file)], {
      stdio: "inherit",
      env: { ...process.env, VIGIL_LOG_LEVEL: process.env.VIGIL_LOG_LEVEL ?? "warn", ...env },
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const results: string[] = [];
let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const started = performance.now();
  let code = 1;
  if (fs.readFileSync(path.join(dir, file), "utf8").includes("startTestPostgres(")) {
    code = await runBench(file, {});
  } else {
    const pg = await startTestPostgres({ durable: true });
    try {
      const url = await cloneTemplate(pg.adminUrl, file.replace(/\.bench\.ts$/, ""));
      code = await runBench(file, { DATABASE_URL: url, VIGIL_BENCH_ADMIN_URL: pg.adminUrl });
    } catch (err) {
      console.error(`${file}: could not prepare its database:`, err);
    } finally {
      await pg.stop();
    }
  }
  if (code !== 0) failed++;
  results.push(`${file}: ${code === 0 ? "done" : `failed (exit ${code})`} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`\n${results.join("\n")}`);
process.exit(failed > 0 ? 1 : 0);
