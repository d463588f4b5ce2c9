import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { callRoute } from "@/test/call-route";
import { insertWorker } from "@/test/alert-fixtures";
import { GET } from "./route";

const db = useTestDatabase("health");
let c: pg.Client;

beforeAll(async () => {
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
});
afterAll(async () => {
  await c.end();
});

const health = (query = "") => callRoute(GET, { path: `/api/health${query}` });
const ALLOWED = new Set(["status", "live", "ready", "database", "migrations", "worker"]);

const DB_UNAVAILABLE = { code: "database_unavailable", message: expect.stringMatching(/^Database unavailable — retrying/) };

function revealsOnlyUpDown(body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(body)) {
    expect(ALLOWED.has(k), `unexpected field ${k}`).toBe(true);
    expect(["up", "down", "degraded", true, false]).toContain(v);
  }
}

describe("GET /api/health", () => {
  it("liveness answers 200 without touching anything else", async () => {
    const r = await health("?probe=live");
    expect(r).toEqual({ status: 200, body: { status: "up", live: true } });
  });

  it("readiness is 503 until a worker is live, then 200; the plain check keeps database and worker for the header", async () => {
    await c.query("DELETE FROM workers");
    let r = await health("?probe=ready");
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: "down", ready: false, database: "up", migrations: "up", worker: "down" });
    let plain = await health();
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ status: "degraded", ready: false, database: "up", worker: "down" });

    await insertWorker(c, { heartbeatAgoMs: 0 });
    r = await health("?probe=ready");
    expect(r).toEqual({ status: 200, body: { status: "up", ready: true, database: "up", migrations: "up", worker: "up" } });
    plain = await health();
    expect(plain.body).toMatchObject({ status: "up", live: true, ready: true, database: "up", worker: "up" });
    revealsOnlyUpDown(plain.body);
  });

  it("readiness is 503 while a migration is pending", async () => {
    await insertWorker(c, { heartbeatAgoMs: 0 });
    const { rows } = await c.query(
      `DELETE FROM "_prisma_migrations" WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations") RETURNING *`,
    );
    try {
      const r = await health("?probe=ready");
      expect(r.status).toBe(503);
      expect(r.body.migrations).toBe("down");
    } finally {
      const m = rows[0];
      await c.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, $3, $4, $5)`,
        [m.id, m.checksum, m.finished_at, m.migration_name, m.applied_steps_count],
      );
    }
  });

  it("an unknown probe is a 400 naming the parameter", async () => {
    const r = await health("?probe=deep");
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.error.fields)).toEqual(["probe"]);
  });

  it("with the database unreachable: live 200, ready and plain 503, nothing but up/down", async () => {
    vi.resetModules();
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "postgres://nobody:nothing@127.0.0.1:1/none";
    try {
      const fresh = await import("./route");
      const pool = await import("@/core/db/pool");
      try {
        expect((await callRoute(fresh.GET, { path: "/api/health?probe=live" })).status).toBe(200);
        const ready = await callRoute(fresh.GET, { path: "/api/health?probe=ready" });
        expect(ready).toEqual({
          status: 503,
          body: { status: "down", ready: false, database: "down", migrations: "down", worker: "down", error: DB_UNAVAILABLE },
        });
        const plain = await callRoute(fresh.GET, { path: "/api/health" });
        expect(plain.status).toBe(503);
        expect(plain.body).toMatchObject({ status: "down", database: "down", worker: "down" });
        // The same fixed error every route answers while the database is down: no detail of why.
        const { error, ...parts } = plain.body;
        expect(error).toEqual(DB_UNAVAILABLE);
        revealsOnlyUpDown(parts);
      } finally {
        await pool.closePool();
      }
    } finally {
      process.env.DATABASE_URL = saved;
      vi.resetModules();
    }
  });
});
