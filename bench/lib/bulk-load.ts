// Loading millions of rows of history fast, the way a restore does it: the secondary indexes of the loaded tables
// are dropped and built again afterwards in one sort each (instead of one index insert per row per index), triggers
// (the read-model triggers and the foreign-key checks) are off during the load (session_replication_role =
// replica) and the read models they keep are computed once at the end, and checkpoints are spaced out while the
// load runs. Primary keys, unique constraints and the foreign keys that point at them are dropped too (a random
// uuid key inserted row by row is what made the load slow down as the table grew) and added again afterwards with
// their own definitions (pg_get_constraintdef), so what is measured is the same schema, not a look-alike.
import type pg from "pg";

interface DroppedIndex {
  name: string;
  def: string;
}
interface DroppedConstraint {
  tbl: string;
  name: string;
  def: string;
  fk: boolean;
}

/** Runs `load` with the tables' secondary indexes and every trigger off; builds the indexes and read models after. */
export async function bulkLoad<T>(
  c: pg.Client,
  tables: string[],
  load: () => Promise<T>,
  say: (line: string) => void = () => {},
): Promise<T> {
  // Indexes not backing a constraint, on the tables themselves (a partitioned table's index covers its partitions).
  const { rows: indexes } = await c.query<DroppedIndex>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY 1`,
    [tables],
  );
  // Keys of the tables, and foreign keys on them or pointing at them (dropped first, added last).
  const { rows: constraints } = await c.query<DroppedConstraint>(
    `SELECT k.conrelid::regclass::text AS tbl, quote_ident(k.conname) AS name, pg_get_constraintdef(k.oid) AS def, k.contype = 'f' AS fk
       FROM pg_constraint k
      WHERE k.conparentid = 0
        AND ((k.contype IN ('p', 'u') AND k.conrelid = ANY($1::regclass[]))
          OR (k.contype = 'f' AND (k.conrelid = ANY($1::regclass[]) OR k.confrelid = ANY($1::regclass[]))))
      ORDER BY k.contype = 'f' DESC, 1, 2`,
    [tables],
  );
  await c.query(`ALTER SYSTEM SET max_wal_size = '16GB'`);
  await c.query(`ALTER SYSTEM SET checkpoint_timeout = '30min'`);
  await c.query(`SELECT pg_reload_conf()`);
  for (const k of constraints) await c.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT ${k.name}`);
  for (const ix of indexes) await c.query(`DROP INDEX ${ix.name}`);
  await c.query(`SET session_replication_role = replica`);
  let out: T;
  try {
    out = await load();
  } finally {
    await c.query(`RESET session_replication_role`);
  }
  const t0 = performance.now();
  await c.query(`SET maintenance_work_mem = '1GB'`);
  for (const k of [...constraints].reverse()) await c.query(`ALTER TABLE ${k.tbl} ADD CONSTRAINT ${k.name} ${k.def}`);
  const t1 = performance.now();
  // pg_get_indexdef writes a partitioned table's index as `ON ONLY` (the parent alone, its partitions' indexes
  // attached one by one); built again, it must cover every partition.
  for (const ix of indexes) await c.query(ix.def.replace(" ON ONLY ", " ON "));
  await c.query(`RESET maintenance_work_mem`);
  say(
    `  ${constraints.length} keys and constraints added again in ${((t1 - t0) / 1000).toFixed(0)} s, ${indexes.length} indexes built in ${((performance.now() - t1) / 1000).toFixed(0)} s`,
  );
  await rebuildReadModels(c);
  await c.query(`ALTER SYSTEM RESET max_wal_size`);
  await c.query(`ALTER SYSTEM RESET checkpoint_timeout`);
  await c.query(`SELECT pg_reload_conf()`);
  await c.query(`CHECKPOINT`);
  return out;
}

/** What the read-model triggers of migration 20261202700000 keep, computed from the runs as that migration does. */
async function rebuildReadModels(c: pg.Client): Promise<void> {
  await c.query(`DELETE FROM schedule_hourly_outcomes`);
  await c.query(`DELETE FROM schedule_last_runs`);
  await c.query(
    `INSERT INTO schedule_hourly_outcomes (schedule_id, hour, late, missed, hollow, failed)
     SELECT r.schedule_id, date_trunc('hour', r.planned_at), sum(c.late), sum(c.missed), sum(c.hollow), sum(c.failed)
       FROM runs r JOIN schedules s ON s.id = r.schedule_id
      CROSS JOIN LATERAL vigil_run_outcome_classes(r.state, r.lateness_ms, s.start_jitter_ms) c
      WHERE r.planned_at > now() - interval '8 days'
      GROUP BY 1, 2
     HAVING sum(c.late + c.missed + c.hollow + c.failed) > 0`,
  );
  await c.query(
    `INSERT INTO schedule_last_runs (schedule_id, run_id, state, planned_at, finished_at, lateness_ms)
     SELECT DISTINCT ON (r.schedule_id) r.schedule_id, r.id, r.state, r.planned_at, r.finished_at, r.lateness_ms
       FROM runs r
      WHERE r.state IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'skipped_overlap', 'missed', 'paused', 'hollow', 'zombie')
        AND r.planned_at <= now()
      ORDER BY r.schedule_id, r.planned_at DESC`,
  );
  await c.query(`SELECT nextval('vigil_console_version')`);
}
