// PostgreSQL refuses to run as root, so as root the embedded server runs as the unprivileged 'postgres' user. That
// user must reach the programs (inside node_modules) and the data folder (.vigil/pgdata), which a checkout in a
// private folder (a container's /root, `mktemp -d`: mode 0700) does not allow. Instead of opening the user's
// folders, what the postgres user cannot reach is placed under ROOT_PLACE (root-owned, 0755 parents): a copy of
// the programs per version, and the data folder under a name derived from the configured one. Both are announced.
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PostgresPrograms, RunAs } from "./postgres-server";

export const ROOT_PLACE = "/var/lib/vigil";

export class PlacementError extends Error {}

/** The postgres user's ids, creating the user (no login, no home) if this machine has none. */
export function ensurePostgresUser(): RunAs {
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
  });
  try {
    return ids();
  } catch {
    execFileSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
    execFileSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"], {
      stdio: "ignore",
    });
    return ids();
  }
}

/** Whether the user can search (traverse into) the folder, or run the file: every parent must let it pass. */
export function reachableAs(runAs: RunAs, target: string): boolean {
  const r = spawnSync("/bin/sh", ["-c", 'test -x "$1"', "sh", target], { ...runAs, cwd: "/", stdio: "ignore" });
  return r.status === 0;
}

function nearestExisting(p: string): string {
  let dir = p;
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  return dir;
}

/** A root-owned folder no one else may write to (the postgres user runs programs from it). */
function ensureRootFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new PlacementError(
      `${dir} must be a folder owned by root that only root can write to (it holds the programs the embedded PostgreSQL runs): remove it and start again.`,
    );
  }
  if ((st.mode & 0o055) !== 0o055) fs.chmodSync(dir, 0o755);
}

/** The programs where the postgres user can run them: in place, or a copy under ROOT_PLACE made once per version. */
export function placePrograms(programs: PostgresPrograms, runAs: RunAs, log: (line: string) => void): string {
  if (reachableAs(runAs, path.join(programs.root, "bin", "postgres"))) return programs.root;
  ensureRootFolder(ROOT_PLACE);
  const target = path.join(ROOT_PLACE, `postgresql-${programs.version}`);
  const done = path.join(target, ".complete");
  if (!fs.existsSync(done)) {
    const partial = `${target}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    // Static libraries and pkg-config files are for building extensions, not for running the server.
    fs.cpSync(programs.root, partial, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => !src.endsWith(".a") && path.basename(src) !== "pkgconfig",
    });
    fs.writeFileSync(path.join(partial, ".complete"), `copied from ${programs.root}\n`);
    try {
      fs.renameSync(partial, target);
    } catch (err) {
      // Another process made the same copy first: use that one.
      fs.rmSync(partial, { recursive: true, force: true });
      if (!fs.existsSync(done)) throw err;
    }
  }
  log(
    `the postgres user cannot reach PostgreSQL's programs in ${programs.root} (a parent folder is private), so it runs a copy of them in ${target}; no folder's permissions were changed`,
  );
  if (!reachableAs(runAs, path.join(target, "bin", "postgres"))) {
    throw new PlacementError(`The postgres user cannot reach ${target} either: let it through ${ROOT_PLACE}'s parent folders.`);
  }
  return target;
}

/**
 * The data folder where the postgres user can reach it: the configured one, or (when a parent folder is private)
 * one under ROOT_PLACE named after the configured path, so every start from this checkout finds the same data.
 */
export function placeDataDir(dataDir: string, runAs: RunAs, log: (line: string) => void): string {
  if (reachableAs(runAs, nearestExisting(dataDir))) return dataDir;
  if (fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    throw new PlacementError(
      `The data folder ${dataDir} holds a PostgreSQL cluster, but the postgres user the embedded server runs as cannot reach it (a parent folder is private): move the folder somewhere it can reach and set VIGIL_DATA_DIR to it.`,
    );
  }
  const placed = placedDataDir(dataDir);
  const home = path.dirname(placed);
  ensureRootFolder(path.join(ROOT_PLACE, "data"));
  ensureRootFolder(home);
  fs.writeFileSync(path.join(home, "configured-as.txt"), `${dataDir}\n`);
  log(
    `the postgres user cannot reach the data folder ${dataDir} (a parent folder is private), so the database is kept in ${placed} (the same folder on every start with this VIGIL_DATA_DIR); no folder's permissions were changed`,
  );
  return placed;
}

/** Where placeDataDir keeps the cluster of this (absolute) configured folder when the postgres user cannot reach it. */
export function placedDataDir(dataDir: string): string {
  const key = crypto.createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
  return path.join(ROOT_PLACE, "data", key, "pgdata");
}
