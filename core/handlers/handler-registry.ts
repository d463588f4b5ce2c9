// Which handlers exist and what payload each accepts. Workers advertise the handlers they serve
// (core/handlers/advertise-handlers.ts); the catalog of every handler ever advertised is what the console
// lists and what a schedule's payload is validated against:
//  - a built-in (compiled into this release) is checked with its own zod schema, whose refinements and
//    messages are richer than any JSON Schema (the worker checks the same schema again before each attempt);
//  - a handler from the user's code is checked against the JSON Schema its workers advertised;
//  - a handler no worker has ever advertised cannot be saved: the error says to start a worker with it.
import { ValidationError, fieldErrorsFromZod } from "../errors";
import type { Queryable } from "../db/pool";
import type { HandlerSpec } from "./define-handler";
import { workerPoolSql } from "../queue/worker-pool";
import { BUILTIN_HANDLER_SPECS } from "./builtin-handler-specs";
import { payloadJsonSchema } from "./advertised-handler";
import { validatePayloadWithSecretRefs } from "./json-schema-validate";
import { SECRET_NAME_PATTERN, SECRET_NAME_RULE, findSecretRefs, replaceSecretRefs, type FoundSecretRef } from "../secrets/secret-refs";

const builtins = new Map<string, HandlerSpec>(BUILTIN_HANDLER_SPECS.map((s) => [s.name, s as HandlerSpec]));

export function getBuiltinHandlerSpec(name: string): HandlerSpec | undefined {
  return builtins.get(name);
}

export interface HandlerListing {
  name: string;
  description: string;
  /** JSON Schema of the payload as a caller writes it (defaults make fields optional). */
  payloadSchema: Record<string, unknown>;
  builtin: boolean;
  /** "builtin", or the module file or package a worker loaded it from. */
  source: string;
  /** Live workers that serve it now; 0 = its runs wait (and alert) until one starts. */
  liveWorkers: number;
  /** Distinct versions (hashes) among those live workers: more than 1 during a rolling deploy. */
  liveVersions: number;
  /** Those live workers by the pool they serve (null: started without a pool; core/queue/worker-pool.ts). */
  livePools: { pool: string | null; workers: number }[];
  hash: string | null;
  /** When a worker last advertised it; null for a built-in no worker has started with yet. */
  lastSeenAt: Date | null;
}

interface CatalogRow {
  name: string;
  description: string;
  payload_schema: Record<string, unknown>;
  builtin: boolean;
  source: string;
  hash: string;
  last_seen_at: Date;
  live_workers: number;
  live_versions: number;
  live_pools: { pool: string | null; workers: number }[] | null;
}

/** SQL: "worker w is live" (the same rule as core/workers/list-workers.ts), deadAfterMs as $n. */
export const liveWorkerSql = (w: string, deadAfterParam: string) =>
  `(${w}.stopped_at IS NULL AND ${w}.state <> 'stopped' AND ${w}.heartbeat_at > clock_timestamp() - make_interval(secs => ${deadAfterParam} / 1000.0))`;

/**
 * SQL: "a live worker of pool `pool` serves handler `handler`" (both SQL expressions; a NULL pool: a worker started
 * without one). The one rule the no-worker alert, the forecast and the run page use (core/queue/worker-pool.ts).
 */
export const liveWorkerServesSql = (handler: string, pool: string, deadAfterParam: string) =>
  `EXISTS (SELECT 1 FROM worker_handlers wh JOIN workers w ON w.id = wh.worker_id
            WHERE wh.handler = ${handler} AND ${workerPoolSql("w")} IS NOT DISTINCT FROM ${pool} AND ${liveWorkerSql("w", deadAfterParam)})`;

/**
 * SQL: the (handler, pool key) pairs some live worker serves, as a query to put in a CTE — the same rule as
 * liveWorkerServesSql, for a statement that asks it of many rows: joined on `handler` and `poolKeySql(pool)`, the
 * question is one hash lookup per row instead of a subquery per row. A pool name is never empty
 * (core/queue/worker-pool.ts), so '' stands for "no pool".
 */
export const liveHandlerPoolsSql = (deadAfterParam: string) =>
  `SELECT DISTINCT wh.handler, ${poolKeySql(workerPoolSql("w"))} AS pool_key FROM worker_handlers wh JOIN workers w ON w.id = wh.worker_id
    WHERE ${liveWorkerSql("w", deadAfterParam)}`;

/** SQL: a pool (an SQL expression, NULL for none) as the key liveHandlerPoolsSql's pairs carry. */
export const poolKeySql = (pool: string) => `coalesce(${pool}, '')`;

async function catalogRows(db: Queryable, deadAfterMs: number, name?: string): Promise<CatalogRow[]> {
  const { rows } = await db.query<CatalogRow>(
    `SELECT h.name, h.description, h.payload_schema, h.builtin, h.source, h.hash, h.last_seen_at,
            coalesce(l.n, 0)::int AS live_workers, coalesce(l.versions, 0)::int AS live_versions, p.pools AS live_pools
       FROM handlers h
       LEFT JOIN LATERAL (
         SELECT count(*) AS n, count(DISTINCT wh.hash) AS versions
           FROM worker_handlers wh JOIN workers w ON w.id = wh.worker_id
          WHERE wh.handler = h.name AND ${liveWorkerSql("w", "$1")}) l ON true
       LEFT JOIN LATERAL (
         SELECT jsonb_agg(jsonb_build_object('pool', x.pool, 'workers', x.n) ORDER BY x.pool NULLS FIRST) AS pools
           FROM (SELECT ${workerPoolSql("w")} AS pool, count(*)::int AS n
                   FROM worker_handlers wh JOIN workers w ON w.id = wh.worker_id
                  WHERE wh.handler = h.name AND ${liveWorkerSql("w", "$1")}
                  GROUP BY 1) x) p ON true
      WHERE $2::text IS NULL OR h.name = $2
      ORDER BY h.name`,
    [deadAfterMs, name ?? null],
  );
  return rows;
}

/** Every handler a schedule can use: the catalog, plus built-ins no worker has advertised yet. Sorted by name. */
export async function listHandlers(db: Queryable, opts: { deadAfterMs: number }): Promise<HandlerListing[]> {
  const rows = await catalogRows(db, opts.deadAfterMs);
  const out: HandlerListing[] = rows.map((r) => ({
    name: r.name,
    description: r.description,
    payloadSchema: r.builtin && builtins.has(r.name) ? payloadJsonSchema(builtins.get(r.name)!) : r.payload_schema,
    builtin: r.builtin,
    source: r.source,
    liveWorkers: r.live_workers,
    liveVersions: r.live_versions,
    livePools: r.live_pools ?? [],
    hash: r.hash,
    lastSeenAt: r.last_seen_at,
  }));
  const seen = new Set(out.map((h) => h.name));
  for (const spec of builtins.values()) {
    if (seen.has(spec.name)) continue;
    out.push({
      name: spec.name,
      description: spec.description,
      payloadSchema: payloadJsonSchema(spec),
      builtin: true,
      source: "builtin",
      liveWorkers: 0,
      liveVersions: 0,
      livePools: [],
      hash: null,
      lastSeenAt: null,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function unknownHandler(handler: string, known: string[]): ValidationError {
  const message = `No worker has ever served handler "${handler}". Start a worker that loads it (VIGIL_HANDLERS=./jobs npm run worker), then save again.`;
  return new ValidationError(`Unknown handler "${handler}".`, { handler: `${message} Known handlers: ${known.join(", ") || "none"}` });
}

function payloadError(handler: string, fields: Record<string, string>): ValidationError {
  return new ValidationError(`The payload does not fit handler ${handler}.`, fields);
}

/**
 * Parses a payload for its handler. Throws ValidationError naming the field (`handler`, or
 * `payload.<path>`) so a form can show the message next to it. Returns the payload to store (a
 * built-in's defaults filled in; a user handler's payload as given — its worker fills defaults).
 *
 * Secret references (`{"$secret": "NAME"}`, core/secrets/secret-refs.ts) stand for strings: each is checked
 * as a string whose content is unknown (a field that needs a number refuses it; a string's format is
 * checked by the worker once the value is filled in), must name a secret that exists, and is stored as is.
 */
export async function validateHandlerPayload(db: Queryable, handler: string, payload: unknown): Promise<unknown> {
  const refs = findSecretRefs(payload ?? {});
  const placeholders = new Map(refs.map((r, i) => [`\u0000vigil-secret-ref-${i}`, r]));
  const refPaths = new Set(refs.map((r) => r.path));
  const asChecked =
    refs.length === 0
      ? (payload ?? {})
      : replaceSecretRefs(payload ?? {}, (_name, path) => [...placeholders].find(([, r]) => r.path === path)![0]);
  const spec = builtins.get(handler);
  let stored: unknown;
  if (spec) {
    const parsed = spec.payload.safeParse(asChecked);
    const issues = parsed.success
      ? []
      : parsed.error.issues.filter((i) => !refPaths.has(i.path.map(String).join(".")) || i.code === "invalid_type");
    if (issues.length > 0) {
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(fieldErrorsFromZod(issues))) {
        fields[k === "_" ? "payload" : `payload.${k}`] = refPaths.has(k) ? `${v} (a secret reference stands for a string)` : v;
      }
      throw payloadError(handler, fields);
    }
    stored = parsed.success ? restoreRefs(parsed.data, placeholders) : payload;
  } else {
    const [row] = await catalogRows(db, 0, handler);
    if (!row) {
      const { rows } = await db.query<{ name: string }>(`SELECT name FROM handlers ORDER BY name`);
      throw unknownHandler(handler, [...new Set([...builtins.keys(), ...rows.map((r) => r.name)])].sort());
    }
    const problems = validatePayloadWithSecretRefs(row.payload_schema, payload ?? {});
    if (problems.length > 0)
      throw payloadError(handler, Object.fromEntries(problems.map((p) => [p.path ? `payload.${p.path}` : "payload", p.message])));
    stored = payload ?? {};
  }
  if (refs.length > 0) await assertSecretsExist(db, refs);
  return stored;
}

/** Puts each reference back where its placeholder string ended up (defaults and key order may have moved things). */
function restoreRefs(value: unknown, placeholders: Map<string, FoundSecretRef>): unknown {
  if (typeof value === "string") {
    const ref = placeholders.get(value);
    return ref ? { $secret: ref.name } : value;
  }
  if (Array.isArray(value)) return value.map((v) => restoreRefs(v, placeholders));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restoreRefs(v, placeholders)]));
  return value;
}

/** 422 naming each field whose reference has a malformed name or names a secret that does not exist. */
async function assertSecretsExist(db: Queryable, refs: FoundSecretRef[]): Promise<void> {
  const fields: Record<string, string> = {};
  for (const r of refs) {
    if (!SECRET_NAME_PATTERN.test(r.name))
      fields[r.path ? `payload.${r.path}` : "payload"] = `"${r.name}" is not a secret name: use ${SECRET_NAME_RULE}`;
  }
  const names = [...new Set(refs.map((r) => r.name))];
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM secrets WHERE name = ANY($1::text[])`, [names]);
  const existing = new Set(rows.map((r) => r.name));
  for (const r of refs) {
    const key = r.path ? `payload.${r.path}` : "payload";
    if (!existing.has(r.name))
      fields[key] ??= `Secret ${r.name} does not exist: an admin sets it under Admin → Secrets (or PUT /api/secrets/${r.name}) first`;
  }
  if (Object.keys(fields).length > 0)
    throw new ValidationError("The payload refers to secrets that do not exist.", fields, "unknown_secret");
}
