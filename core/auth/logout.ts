// Ends a console session and records it.
import type { Queryable } from "../db/pool";
import { recordAudit } from "../audit/record-audit";
import type { Actor } from "./roles";
import { deleteSession } from "./sessions";
import { inTransaction } from "../db/pool";

export async function logout(sessionToken: string, actor: Actor, opts: { db?: Queryable } = {}): Promise<void> {
  await inTransaction({ tx: opts.db }, async (tx) => {
    const gone = await deleteSession(tx, sessionToken);
    if (!gone) return;
    await recordAudit(tx, { actor, action: "auth.logout", targetType: "user", targetId: gone.userId });
  });
}
