// A worker records the handlers it serves when it registers. worker_handlers says which live worker
// serves what (liveness is the worker's own heartbeat); the handlers catalog keeps the newest advertised
// spec of every handler ever served, which the console lists and validates payloads against.
import type { Queryable } from "../db/pool";
import type { AdvertisedHandler } from "./advertised-handler";

export async function advertiseHandlers(db: Queryable, workerId: string, handlers: readonly AdvertisedHandler[]): Promise<void> {
  if (handlers.length === 0) return;
  const col = <K extends keyof AdvertisedHandler>(k: K) => handlers.map((h) => h[k]);
  await db.query(
    `WITH h AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::boolean[], $8::boolean[])
                AS u(name, description, payload_schema, hash, source, builtin, runs_programs)),
     catalog AS (
       INSERT INTO handlers (name, description, payload_schema, hash, source, builtin, runs_programs, last_worker_id)
       SELECT name, description, payload_schema, hash, source, builtin, runs_programs, $1 FROM h
       ON CONFLICT (name) DO UPDATE SET description = excluded.description, payload_schema = excluded.payload_schema,
              hash = excluded.hash, source = excluded.source, builtin = excluded.builtin, runs_programs = excluded.runs_programs,
              last_seen_at = clock_timestamp(), last_worker_id = excluded.last_worker_id)
     INSERT INTO worker_handlers (worker_id, handler, hash)
     SELECT $1, name, hash FROM h
     ON CONFLICT (worker_id, handler) DO UPDATE SET hash = excluded.hash`,
    [
      workerId,
      col("name"),
      col("description"),
      handlers.map((h) => JSON.stringify(h.payloadSchema)),
      col("hash"),
      col("source"),
      col("builtin"),
      col("runsPrograms"),
    ],
  );
}
