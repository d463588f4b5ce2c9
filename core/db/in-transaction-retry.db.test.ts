// A transaction of its own that PostgreSQL chose as a deadlock victim (or failed to serialise) is run again by
// inTransaction, its first attempt's writes rolled back; a nested one is left to its owner; one that keeps losing
// reaches the caller (answered 409 by the route wrapper, core/errors.ts).
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@/test/db";
import { getPool, inTransaction } from "./pool";

useTestDatabase("in_transaction_retry");

const lost = (code: string) => Object.assign(new Error("lost a race"), { code });
const count = async (email: string) =>
  (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM login_attempts WHERE email = $1`, [email])).rows[0]!.n;

describe("inTransaction and concurrency failures", () => {
  it.each(["40P01", "40001"])("runs a transaction that failed with %s again, keeping only the attempt that committed", async (code) => {
    const email = `retry-${code}@example.com`;
    let attempts = 0;
    const result = await inTransaction({}, async (tx) => {
      attempts++;
      await tx.query(`INSERT INTO login_attempts (email, ip, success, at) VALUES ($1, 'x', false, clock_timestamp())`, [email]);
      if (attempts === 1) throw lost(code);
      return "done";
    });
    expect({ result, attempts, rows: await count(email) }).toEqual({ result: "done", attempts: 2, rows: 1 });
  });

  it("gives up after a few attempts, and never retries other errors or a nested transaction", async () => {
    let attempts = 0;
    await expect(
      inTransaction({}, async () => {
        attempts++;
        throw lost("40P01");
      }),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(attempts).toBe(3);

    attempts = 0;
    await expect(
      inTransaction({}, async () => {
        attempts++;
        throw lost("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);

    attempts = 0;
    const client = await getPool().connect();
    try {
      await client.query("BEGIN");
      await expect(
        inTransaction({ tx: client }, async () => {
          attempts++;
          throw lost("40P01");
        }),
      ).rejects.toMatchObject({ code: "40P01" });
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(attempts).toBe(1);
  });
});
