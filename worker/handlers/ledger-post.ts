// ledger.post: the canonical idempotent effect. The posting, both balance changes and the once
// marker commit together, so however often the run is delivered or retried the money moves once.
import { defineHandler } from "../../core/handlers/define-handler.ts";
import { ledgerPostSpec } from "../../core/handlers/builtin-handler-specs.ts";

export const ledgerPost = defineHandler({
  ...ledgerPostSpec,
  async run(p, ctx) {
    const outcome = await ctx.once(`ledger.post:${ctx.idempotencyKey}`, async (tx) => {
      await tx.query(`INSERT INTO ledger_accounts (id) VALUES ($1), ($2) ON CONFLICT (id) DO NOTHING`, [p.from, p.to]);
      // Lock both accounts in id order: opposite transfers running at once must not deadlock.
      await tx.query(`SELECT id FROM ledger_accounts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [[p.from, p.to]]);
      await tx.query(`UPDATE ledger_accounts SET balance = balance - $2::bigint WHERE id = $1`, [p.from, p.amount]);
      await tx.query(`UPDATE ledger_accounts SET balance = balance + $2::bigint WHERE id = $1`, [p.to, p.amount]);
      await tx.query(`INSERT INTO ledger_entries (idempotency_key, from_account, to_account, amount, run_id) VALUES ($1, $2, $3, $4, $5)`, [
        ctx.idempotencyKey,
        p.from,
        p.to,
        p.amount,
        ctx.runId,
      ]);
    });
    if (!outcome.ran) {
      ctx.log("info", "posting already made by an earlier attempt; nothing moved", { key: ctx.idempotencyKey });
      return { records: 1, summary: `already posted: ${p.amount} ${p.from} → ${p.to}` };
    }
    ctx.log("info", "posted", { from: p.from, to: p.to, amount: p.amount });
    return { records: 1, summary: `posted ${p.amount} ${p.from} → ${p.to}` };
  },
});
