// A database job: totals a day of ledger postings into a report table, exactly once per occurrence.
// ctx.once commits the report row and its "done" marker in one transaction, so a retry, a second
// delivery or an operator's re-run of the same occurrence finds the marker and writes nothing twice.
import { defineHandler, z } from "vigil/sdk";

export const dailyTotals = defineHandler({
  name: "examples.daily-totals",
  description: "Totals one day of ledger postings into example_daily_totals, once per occurrence.",
  payload: z.strictObject({
    daysAgo: z.number().int().min(0).max(365).default(1).describe("Which day to total: 0 = today, 1 = yesterday (database clock)"),
  }),
  async run(payload, ctx) {
    const outcome = await ctx.once(`examples.daily-totals:${ctx.idempotencyKey}`, async (tx) => {
      // The example brings its own table; two first runs at once must not race to create it.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('example_daily_totals'))`);
      await tx.query(`CREATE TABLE IF NOT EXISTS example_daily_totals (
        day date NOT NULL, idempotency_key text PRIMARY KEY, entries int NOT NULL, total bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await tx.query<{ day: string; entries: number; total: string }>(
        `INSERT INTO example_daily_totals (day, idempotency_key, entries, total)
         SELECT d, $2, count(e.*)::int, coalesce(sum(e.amount), 0)
           FROM (SELECT (now() - make_interval(days => $1))::date AS d) day
           LEFT JOIN ledger_entries e ON e.at >= day.d AND e.at < day.d + 1
          GROUP BY d
         RETURNING day::text, entries, total::text`,
        [payload.daysAgo, ctx.idempotencyKey],
      );
      return rows[0]!;
    });
    if (!outcome.ran) {
      ctx.log("info", "this occurrence was already totalled; nothing written");
      return { records: 0, summary: "already totalled by an earlier attempt" };
    }
    const { day, entries, total } = outcome.value;
    ctx.log("info", "day totalled", { day, entries, total });
    return { records: entries, summary: `${day}: ${entries} postings, total ${total}` };
  },
});
