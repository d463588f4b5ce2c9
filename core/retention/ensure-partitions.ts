// Daily partitions of the history tables (migration 20261202500000_retention_partitions), created ahead so an
// insert never finds its day missing. Yesterday through `aheadDays` ahead are (re)checked on every pass, so a
// worker that was down catches up on its first pass; `npm start` also runs this after migrating.
import type { Queryable } from "../db/pool";

export const PARTITIONED_TABLES = ["run_events", "run_logs"] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** Creates the missing day partitions of every history table from yesterday to today + aheadDays; returns their names. */
export async function ensureDayPartitions(db: Queryable, aheadDays: number): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT t || '_p' || to_char(d, 'YYYYMMDD') AS name
       FROM unnest($1::text[]) t,
            LATERAL (SELECT (now() AT TIME ZONE 'UTC')::date + i AS d FROM generate_series(-1, $2::int) i) days
      WHERE vigil_ensure_day_partition(t, d)`,
    [PARTITIONED_TABLES, aheadDays],
  );
  return rows.map((r) => r.name);
}

/** Creates these exact days' partitions (a kept run's rows moved to the day it expires). */
export async function ensurePartitionDays(db: Queryable, table: PartitionedTable, days: string[]): Promise<void> {
  if (days.length === 0) return;
  await db.query(`SELECT vigil_ensure_day_partition($1, d) FROM unnest($2::date[]) d`, [table, days]);
}

export interface DayPartition {
  name: string;
  /** UTC day, 'YYYY-MM-DD'. */
  day: string;
  detachPending: boolean;
}

/** The table's day partitions, oldest first (only those named by vigil_ensure_day_partition). */
export async function listDayPartitions(db: Queryable, table: PartitionedTable): Promise<DayPartition[]> {
  const { rows } = await db.query<{ name: string; day: string; detach_pending: boolean }>(
    `SELECT c.relname AS name, to_char(to_date(right(c.relname, 8), 'YYYYMMDD'), 'YYYY-MM-DD') AS day, i.inhdetachpending AS detach_pending
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass AND c.relname ~ '_p[0-9]{8}$'
      ORDER BY c.relname`,
    [table],
  );
  return rows.map((r) => ({ name: r.name, day: r.day, detachPending: r.detach_pending }));
}
