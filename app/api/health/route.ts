// Liveness and readiness for load balancers and the console header. Public, so it says up or
// down and nothing more.
import { NextResponse } from "next/server";
import { getPool } from "@/core/db/pool";
import { getEnv } from "@/core/env";
import { countLiveWorkers } from "@/core/workers/list-workers";
import { pendingMigrations } from "@/core/db/migrate";

export const dynamic = "force-dynamic";

export async function GET() {
  let database: "up" | "down" = "down";
  let worker: "up" | "down" = "down";
  let migrations: "current" | "pending" | "unknown" = "unknown";
  try {
    const pool = getPool();
    await pool.query("SELECT 1");
    database = "up";
    migrations = (await pendingMigrations(pool)).length === 0 ? "current" : "pending";
    worker = (await countLiveWorkers(pool, getEnv().VIGIL_WORKER_DEAD_AFTER_MS)) > 0 ? "up" : "down";
  } catch {
    // Reported as "down" below; details stay in the server log of the failing dependency.
  }
  const ready = database === "up" && migrations === "current" && worker === "up";
  return NextResponse.json(
    { status: ready ? "ok" : database === "up" ? "degraded" : "down", live: true, ready, database, worker, migrations },
    { status: database === "up" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
