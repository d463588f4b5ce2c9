// Where a bench's database time goes: pg_stat_statements (when the server preloads it) over a measured window —
// statements and commits per run, and the statements that ran most often. Benches start their server with
// PROFILE_SETTINGS and call startProfile right before the window.
import type pg from "pg";

export const PROFILE_SETTINGS = {
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
  // The window's WAL is read back (pg_walinspect) to count what each run wrote: keep it past checkpoints.
  wal_keep_size: "2GB",
};

export interface ProfileReport {
  /** Lines describing the window, per `per` units of work (runs, jobs). */
  lines: string[];
  /** statements: all, those run inside functions and triggers too; clientStatements: those sent by clients (round trips). */
  perRun: { statements: number; clientStatements: number; commits: number };
  /** Rows per call of the statements whose text matches `query` (e.g. runs per claim batch); undefined if none ran. */
  rowsPerCall(query: RegExp): number | undefined;
  /** What the window wrote to `runs`, per unit (when asked for and pg_walinspect is there). */
  runsWrites?: { indexInserts: number; updates: number; hotUpdates: number };
}

export interface Profile {
  report(per: number, top?: number): Promise<ProfileReport>;
}

/** `runsWrites: false` for a baseline's database, whose `runs` table the window does not touch. */
export async function startProfile(pool: pg.Pool, opts: { runsWrites?: boolean } = {}): Promise<Profile | null> {
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await pool.query("SELECT pg_stat_statements_reset()");
  } catch {
    return null; // not preloaded on this server
  }
  const commits = async () =>
    Number((await pool.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0].xact_commit);
  const c0 = await commits();
  const lsn0: string = (await pool.query("SELECT pg_current_wal_lsn()::text AS l")).rows[0].l;
  return {
    async report(per, top = 12) {
      const c1 = await commits();
      const { rows } = await pool.query(
        `SELECT calls::float8 AS calls, total_exec_time::float8 AS ms, rows::float8 AS rows, toplevel, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q
           FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_stat_database%'
          ORDER BY calls DESC`,
      );
      const calls = rows.reduce((n, r) => n + r.calls, 0);
      // A top-level statement's time includes the statements it runs (functions, triggers): summed at the top only.
      const topRows = rows.filter((r) => r.toplevel);
      const topCalls = topRows.reduce((n, r) => n + r.calls, 0);
      const ms = topRows.reduce((n, r) => n + r.ms, 0);
      const lines = [
        `statements ${(calls / per).toFixed(2)} per run (${(topCalls / per).toFixed(2)} sent by clients, the rest run inside functions and triggers), commits ${((c1 - c0) / per).toFixed(2)} per run, execution ${(ms / per).toFixed(2)} ms per run (whole database, all processes)`,
      ];
      const row = (r: { calls: number; ms: number; rows: number; q: string }) =>
        `  ${(r.calls / per).toFixed(3).padStart(7)}/run ${(r.ms / r.calls).toFixed(2).padStart(7)} ms/call ${(r.ms / per).toFixed(3).padStart(7)} ms/run ${(r.rows / r.calls).toFixed(1).padStart(6)} rows/call  ${r.q}`;
      lines.push("most often:");
      for (const r of rows.slice(0, top)) lines.push(row(r));
      lines.push("most time:");
      for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, top)) lines.push(row(r));
      const writes = opts.runsWrites === false ? null : await runsWrites(pool, lsn0, per);
      if (writes) lines.push(...writes.lines);
      return {
        lines,
        perRun: { statements: calls / per, clientStatements: topCalls / per, commits: (c1 - c0) / per },
        rowsPerCall(query) {
          const hit = rows.filter((r) => query.test(r.q));
          const n = hit.reduce((k, r) => k + r.calls, 0);
          return n > 0 ? hit.reduce((k, r) => k + r.rows, 0) / n : undefined;
        },
        runsWrites: writes?.figures,
      };
    },
  };
}

/** The tables whose writes the window reads back from the WAL: the run, its attempt, and its schedule (locked). */
const WRITTEN_TABLES = ["runs", "attempts", "schedules"];

/**
 * What the window wrote to `runs` (and its attempts and schedules) and their indexes, read back from the WAL
 * (pg_walinspect): heap inserts, updates and HOT updates, row locks, and index records (almost all leaf inserts;
 * page splits add a few) per index, per unit of work. Every non-HOT update of a row enters each index whose
 * predicate its new version meets.
 */
async function runsWrites(
  pool: pg.Pool,
  lsn0: string,
  per: number,
): Promise<{ lines: string[]; figures?: { indexInserts: number; updates: number; hotUpdates: number } }> {
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    const { rows } = await pool.query<{ tbl: string; relname: string; heap: boolean; record_type: string; n: number }>(
      `SELECT t.relname AS tbl, c.relname, c.relkind = 'r' AS heap, b.record_type, count(DISTINCT b.start_lsn)::int AS n
         FROM pg_get_wal_block_info($1::pg_lsn, pg_current_wal_lsn()) b
         JOIN pg_class c ON c.relfilenode = b.relfilenode
         JOIN pg_class t ON t.oid = CASE WHEN c.relkind = 'i' THEN (SELECT indrelid FROM pg_index WHERE indexrelid = c.oid) ELSE c.oid END
        WHERE b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND b.relforknumber = 0
          AND t.relname = ANY($2) AND t.relnamespace = 'public'::regnamespace
        GROUP BY 1, 2, 3, 4`,
      [lsn0, WRITTEN_TABLES],
    );
    const f = (n: number) => (n / per).toFixed(2);
    const lines: string[] = [];
    let figures: { indexInserts: number; updates: number; hotUpdates: number } | undefined;
    for (const table of WRITTEN_TABLES) {
      const mine = rows.filter((r) => r.tbl === table);
      const heap = (t: string) => mine.filter((r) => r.heap && r.record_type.startsWith(t)).reduce((n, r) => n + r.n, 0);
      const byIndex = new Map<string, number>();
      for (const r of mine.filter((x) => !x.heap && /INSERT|SPLIT/.test(x.record_type)))
        byIndex.set(r.relname, (byIndex.get(r.relname) ?? 0) + r.n);
      const total = [...byIndex.values()].reduce((a, b) => a + b, 0);
      lines.push(
        `${table}, from the WAL: heap inserts ${f(heap("INSERT"))}, updates ${f(heap("UPDATE"))}, HOT updates ${f(heap("HOT_UPDATE"))}, row locks ${f(heap("LOCK"))} per run; ` +
          `index inserts ${f(total)} per run${total > 0 ? ":" : ""}`,
      );
      if (total > 0)
        lines.push(
          "  " +
            [...byIndex.entries()]
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} ${f(v)}`)
              .join(", "),
        );
      if (table === "runs")
        figures = { indexInserts: total / per, updates: (heap("UPDATE") + heap("HOT_UPDATE")) / per, hotUpdates: heap("HOT_UPDATE") / per };
    }
    return { lines, figures };
  } catch (err) {
    return { lines: [`runs, from the WAL: not available (${(err as Error).message})`] };
  }
}
