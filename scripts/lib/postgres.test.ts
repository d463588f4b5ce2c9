import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkDataDir, checkReachable, startEmbeddedPostgres, StartupError } from "./postgres";

const dirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-pgcheck-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("embedded PostgreSQL start-up diagnostics", () => {
  it("names a taken port and what to do about it", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const err = await startEmbeddedPostgres({ dataDir: path.join(tempDir(), "data"), port }).catch((e) => e);
      expect(err).toBeInstanceOf(StartupError);
      expect(err.message).toContain(`Port ${port} is already taken`);
      expect(err.message).toContain("VIGIL_PG_PORT");
    } finally {
      blocker.close();
    }
  });

  it("refuses a data folder made by another PostgreSQL major version", () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, "PG_VERSION"), "15\n");
    expect(() => checkDataDir(d)).toThrow(/made by PostgreSQL 15, but the embedded server is 18.*VIGIL_DATA_DIR/);
  });

  it("refuses a data folder that a running server holds", () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, "PG_VERSION"), "18\n");
    fs.writeFileSync(path.join(d, "postmaster.pid"), `${process.pid}\n${d}\n`);
    expect(() => checkDataDir(d)).toThrow(new RegExp(`in use by a running PostgreSQL \\(pid ${process.pid}\\)`));
  });

  it("clears the lock a crashed server left behind", () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, "PG_VERSION"), "18\n");
    // A pid far above pid_max on Linux is never alive.
    fs.writeFileSync(path.join(d, "postmaster.pid"), "99999999\n");
    expect(checkDataDir(d)).toBe("existing");
    expect(fs.existsSync(path.join(d, "postmaster.pid"))).toBe(false);
  });

  it("refuses a non-empty folder that holds no cluster", () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, "notes.txt"), "hello");
    expect(() => checkDataDir(d)).toThrow(/holds no PostgreSQL cluster/);
  });

  it("explains an unreachable server without printing its password", async () => {
    const err = await checkReachable("postgres://ops:s3cret@127.0.0.1:1/vigil").catch((e) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect(err.message).toMatch(/Cannot reach PostgreSQL at postgres:\/\/ops:\*\*\*@127\.0\.0\.1:1\/vigil/);
    expect(err.message).not.toContain("s3cret");
  });
});
