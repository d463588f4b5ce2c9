// Re-run with downstream: when an operator re-runs an upstream occurrence and asks for it, the downstream
// occurrences mapped to it (and theirs, down the chain) that have ended are put back to wait for it — state
// 'planned', wait_reason 'upstream', due now (their wait deadline counts from here) — and the chain sweep releases
// each once its upstream occurrence ends again, as a new attempt of the same occurrence (same key; the enqueue
// sends attempt n + 1). Occurrences still waiting simply keep waiting; ones queued or running are left alone.
import type { Actor } from "../../auth/roles";
import type { Queryable } from "../../db/pool";
import { findDownstreamOccurrences, type ChainOccurrence } from "./chain-occurrences";

/** Ended downstream states a re-run with downstream puts back to wait (paused and skipped ones stay as they are). */
export const RERUN_DOWNSTREAM_STATES = ["succeeded", "failed", "timed_out", "cancelled", "hollow", "zombie", "missed", "excluded"] as const;

const MAX_DEPTH = 10;

export interface DownstreamRerunItem extends ChainOccurrence {
  scheduleId: string;
  scheduleName: string;
  /** Put back to wait (an ended one), or already waiting for its upstream (left as is). */
  action: "rerun" | "waits_already";
}

/** The downstream occurrences, down the chain, that a re-run with downstream of `runId` would re-run (the dry run). */
export async function listDownstreamToRerun(db: Queryable, runId: string): Promise<DownstreamRerunItem[]> {
  const out: DownstreamRerunItem[] = [];
  const seen = new Set<string>([runId]);
  let frontier = [runId];
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
    const links = await findDownstreamOccurrences(db, frontier);
    frontier = [];
    for (const l of links) {
      for (const r of l.runs) {
        if (seen.has(r.runId)) continue;
        seen.add(r.runId);
        const ended = (RERUN_DOWNSTREAM_STATES as readonly string[]).includes(r.state);
        const waiting = r.state === "planned" && r.waitReason === "upstream";
        if (!ended && !waiting) continue;
        out.push({ ...r, scheduleId: l.scheduleId, scheduleName: l.scheduleName, action: ended ? "rerun" : "waits_already" });
        frontier.push(r.runId);
      }
    }
  }
  return out;
}

/** Puts the ended ones back to wait, in the caller's transaction (the re-run's); returns what it did. */
export async function rerunDownstream(tx: Queryable, runId: string, actor: Actor, reason: string): Promise<DownstreamRerunItem[]> {
  const items = await listDownstreamToRerun(tx, runId);
  const ids = items.filter((i) => i.action === "rerun").map((i) => i.runId);
  if (ids.length === 0) return items;
  const { rows } = await tx.query<{ id: string }>(
    `WITH t AS (SELECT id FROM runs WHERE id = ANY($1::uuid[]) AND state = ANY($2::text[]) ORDER BY id FOR UPDATE),
     u AS (
       UPDATE runs r SET state = 'planned', wait_reason = 'upstream', due_at = clock_timestamp(), next_attempt_at = NULL,
              max_attempts = greatest(r.max_attempts, r.attempt + 1), reruns = r.reruns + 1, finished_at = NULL, error = NULL,
              cancel_requested_at = NULL, cancel_requested_by = NULL, cancel_reason = NULL, updated_at = clock_timestamp()
         FROM t WHERE r.id = t.id
       RETURNING r.id, r.attempt
     ),
     e AS (
       INSERT INTO run_events (run_id, type, attempt, message, data)
       SELECT u.id, 'rerun_requested', u.attempt + 1, $3, $4::jsonb FROM u
     )
     SELECT id FROM u`,
    [
      ids,
      [...RERUN_DOWNSTREAM_STATES],
      `re-run by ${actor.label} with its upstream run ${runId}: ${reason} — waits for the upstream again, then runs as a new attempt`,
      JSON.stringify({ actor: actor.label, actorType: actor.type, reason, upstreamRunId: runId, withDownstream: true }),
    ],
  );
  const done = new Set(rows.map((r) => r.id));
  return items.filter((i) => i.action === "waits_already" || done.has(i.runId));
}
