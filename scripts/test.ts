// `npm test`: type check and lint, unit tests, database tests on a real PostgreSQL (with real worker
// processes), then Playwright e2e in Chromium against the built console and a real worker.
// Every runner's result is summed into one closing line: `N passed, N failed, N skipped`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const total: Tally = { passed: 0, failed: 0, skipped: 0 };
const lines: string[] = [];
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

function run(cmd: string, args: string[], env: Record<string, string> = {}): number {
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  return r.status ?? 1;
}

function record(name: string, t: Tally, exitCode: number): void {
  // A runner that crashed before reporting counts as one failure, never as a silent pass.
  if (exitCode !== 0 && t.failed === 0) t.failed = 1;
  total.passed += t.passed;
  total.failed += t.failed;
  total.skipped += t.skipped;
  lines.push(`${name}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

fs.mkdirSync("artifacts", { recursive: true });
const node = process.execPath;

if (wanted("static")) {
  const tsc = run(node, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "tsconfig.json"]);
  record("typecheck", { passed: tsc === 0 ? 1 : 0, failed: tsc === 0 ? 0 : 1, skipped: 0 }, tsc);
  const lint = run(node, ["node_modules/eslint/bin/eslint.js", "."]);
  record("lint", { passed: lint === 0 ? 1 : 0, failed: lint === 0 ? 0 : 1, skipped: 0 }, lint);
  // Formatting is part of lint: `npm run format` fixes what this reports.
  const format = run(node, ["node_modules/prettier/bin/prettier.cjs", "--check", "--log-level", "warn", "."]);
  record("format", { passed: format === 0 ? 1 : 0, failed: format === 0 ? 0 : 1, skipped: 0 }, format);
}

for (const project of ["unit", "db"]) {
  if (!wanted(project)) continue;
  const out = `artifacts/vitest-${project}.json`;
  fs.rmSync(out, { force: true });
  const code = run(node, [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--project",
    project,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${out}`,
    "--passWithNoTests",
  ]);
  const r = readJson(out) ?? {};
  record(
    project,
    {
      passed: Number(r.numPassedTests ?? 0),
      failed: Number(r.numFailedTests ?? 0),
      skipped: Number(r.numPendingTests ?? 0) + Number(r.numTodoTests ?? 0),
    },
    code,
  );
}

if (wanted("e2e")) {
  const out = "artifacts/e2e-report.json";
  fs.rmSync(out, { force: true });
  const code = run(node, ["node_modules/@playwright/test/cli.js", "test"]);
  const stats = (readJson(out)?.stats ?? {}) as Record<string, number>;
  record("e2e", { passed: (stats.expected ?? 0) + (stats.flaky ?? 0), failed: stats.unexpected ?? 0, skipped: stats.skipped ?? 0 }, code);
}

process.stdout.write(`\n${lines.join("\n")}\n`);
process.stdout.write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
process.exit(total.failed > 0 ? 1 : 0);
