// A manual trigger may override the payload the run copied from its schedule: set before anything takes the run
// (in the transaction that inserted it).
import type { Queryable } from "../../db/pool";

export async function overrideRunPayload(tx: Queryable, runId: string, payload: unknown): Promise<void> {
  await tx.query(`UPDATE runs SET payload = $2 WHERE id = $1`, [runId, JSON.stringify(payload)]);
}
