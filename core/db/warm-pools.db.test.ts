// A run triggered after a quiet spell must not wait for new connections on its way to its handler: the
// console's pool (the trigger statement) and the worker's hot-path pool (the claim) keep a connection open past
// pg-pool's idle timeout, and a statement after the pause runs on that same backend.
import { afterAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createFetchPool, createHotPathPool, getPool } from "@/core/db/pool";

const db = useTestDatabase("warm_pools");
const pools: pg.Pool[] = [];

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

const backend = async (p: pg.Pool) => (await p.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;

describe("warm pools", () => {
  it("keep one connection through a pause longer than the idle timeout, while extra ones are closed", async () => {
    const hot = createHotPathPool(db.url, 4);
    const fetch = createFetchPool(db.url, 2);
    pools.push(hot, fetch);
    const all = [getPool(), fetch];
    const before = await Promise.all(all.map(backend));
    // Two connections at once in the hot pool: one is above the warm minimum and goes after the idle timeout.
    const extra = await Promise.all([hot.connect(), hot.connect()]);
    const hotPids = await Promise.all(
      extra.map(async (c) => (await c.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid),
    );
    extra.forEach((c) => c.release());
    expect(hot.totalCount).toBe(2);
    const idleMs = Math.max(
      ...[...all, hot].map((p) => (p as unknown as { options: { idleTimeoutMillis: number } }).options.idleTimeoutMillis),
    );
    expect(idleMs).toBeGreaterThan(0);
    // The pause is the pools' own idle timeout (pg-pool's default, 10 s) and a margin: what is tested is that nothing
    // closes the kept connection when that timer fires.
    await new Promise((r) => setTimeout(r, idleMs + 1000));
    expect(hot.totalCount).toBe(1);
    expect(hotPids).toContain(await backend(hot));
    expect(await Promise.all(all.map(backend))).toEqual(before);
  }, 30_000);
});
