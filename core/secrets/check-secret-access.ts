// The access rule applied to a schedule being saved: every secret its payload refers to must allow it, or the
// save is refused (422 secret_not_allowed naming the secret, the field and the rule) and nothing is stored.
// Callers run it inside the save's transaction, with the schedule as it will be stored (name, tags, handler).
import type { Queryable } from "../db/pool";
import { ValidationError } from "../errors";
import { mayUseSecret, readSecretAccess, secretRefusal, type ScheduleIdentity } from "./secret-access";
import { findSecretRefs } from "./secret-refs";

/** The rules of the named secrets (a secret that does not exist is absent). */
export async function readSecretAccessRules(db: Queryable, names: string[]) {
  const { rows } = await db.query<{ name: string; access: unknown }>(`SELECT name, access FROM secrets WHERE name = ANY($1::text[])`, [
    names,
  ]);
  return new Map(rows.map((r) => [r.name, readSecretAccess(r.access)]));
}

export async function assertScheduleMayUseSecrets(db: Queryable, schedule: ScheduleIdentity, payload: unknown): Promise<void> {
  const refs = findSecretRefs(payload ?? {});
  if (refs.length === 0) return;
  const rules = await readSecretAccessRules(db, [...new Set(refs.map((r) => r.name))]);
  const fields: Record<string, string> = {};
  const refused: string[] = [];
  for (const ref of refs) {
    const rule = rules.get(ref.name);
    // A missing secret is refused by the payload check, which names it; nothing to add here.
    if (!rule || mayUseSecret(rule, schedule)) continue;
    const message = secretRefusal(ref.name, rule, schedule);
    fields[ref.path ? `payload.${ref.path}` : "payload"] = message;
    if (!refused.includes(message)) refused.push(message);
  }
  if (refused.length > 0) throw new ValidationError(refused.join(" "), fields, "secret_not_allowed");
}
