// Where a bench's database time goes: pg_stat_statements (when the server preloads it) over a measured window —
// statements and commits per run, and the statements that ran most often. Benches start their server with
// PROFILE_SETTINGS and call startProfile right before the window.
import type pg from "pg";

export const PROFILE_SETTINGS = { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" };

export interface Profile {
  /** Lines describing the window, per `per` units of work (runs, jobs). */
  report(per: number, top?: number): Promise<string[]>;
}

export async function startProfile(pool: pg.Pool): Promise<Profile | null> {
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await pool.query("SELECT pg_stat_statements_reset()");
  } catch {
    return null; // not preloaded on this server
  }
  const commits = async () =>
    Number((await pool.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0].xact_commit);
  const c0 = await commits();
  return {
    async report(per, top = 12) {
      const c1 = await commits();
      const { rows } = await pool.query(
        `SELECT calls::float8 AS calls, total_exec_time::float8 AS ms, rows::float8 AS rows, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q
           FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_stat_database%'
          ORDER BY calls DESC`,
      );
      const calls = rows.reduce((n, r) => n + r.calls, 0);
      const ms = rows.reduce((n, r) => n + r.ms, 0);
      const out = [
        `statements ${(calls / per).toFixed(2)} per run, commits ${((c1 - c0) / per).toFixed(2)} per run, execution ${(ms / per).toFixed(2)} ms per run (whole database, all processes)`,
      ];
      const row = (r: { calls: number; ms: number; rows: number; q: string }) =>
        `  ${(r.calls / per).toFixed(3).padStart(7)}/run ${(r.ms / r.calls).toFixed(2).padStart(7)} ms/call ${(r.ms / per).toFixed(3).padStart(7)} ms/run ${(r.rows / r.calls).toFixed(1).padStart(6)} rows/call  ${r.q}`;
      out.push("most often:");
      for (const r of rows.slice(0, top)) out.push(row(r));
      out.push("most time:");
      for (const r of [...rows].sort((a, b) => b.ms - a.ms).slice(0, top)) out.push(row(r));
      return out;
    },
  };
}
