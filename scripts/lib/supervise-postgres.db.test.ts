// The launcher's supervision of the embedded PostgreSQL on its own: a SIGKILLed postmaster is started again on the
// same data folder with its committed data (crash recovery), with a line when it dies and one when it is back;
// a server stopped on purpose is left stopped.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { freePort } from "@/test/postgres-for-tests";
import { waitFor } from "@/test/wait-for";
import { startEmbeddedPostgres, type RunningPostgres } from "./postgres";
import { supervisePostgres } from "./supervise-postgres";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-supervise-pg-"));
// Opened so that, as root, the 'postgres' user can keep the cluster here (see test/postgres-for-tests.ts).
fs.chmodSync(dir, 0o755);
let server: RunningPostgres | undefined;
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const postmasterPid = (s: RunningPostgres) => Number(fs.readFileSync(path.join(s.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

it("restarts a killed PostgreSQL on the same data folder, keeps committed rows, and leaves a stopped one stopped", async () => {
  server = await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), port: await freePort(), persistent: false, say: () => {} });
  const url = server.url("postgres");
  await query(url, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
  const lines: string[] = [];
  let stopping = false;
  const supervision = supervisePostgres(server, { say: (l) => lines.push(l), stopping: () => stopping });

  const first = postmasterPid(server);
  process.kill(first, "SIGKILL");
  await waitFor("the death line", () => lines.some((l) => l.startsWith("the embedded PostgreSQL died (signal SIGKILL)")), {
    timeoutMs: 10_000,
  });
  await waitFor("the back line", () => lines.some((l) => l.startsWith("the embedded PostgreSQL is back")), { timeoutMs: 30_000 });
  expect(postmasterPid(server)).not.toBe(first);
  expect((await query(url, "SELECT v FROM kept")).rows).toEqual([{ v: 42 }]);

  // A stop on purpose (Ctrl-C) is not a death: nothing restarts it.
  stopping = true;
  const before = lines.length;
  await server.stop();
  await supervision;
  expect(lines.slice(before)).toEqual([]);
  await expect(query(url, "SELECT 1")).rejects.toThrow();
  server = undefined;
});
