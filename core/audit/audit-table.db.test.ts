import { describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "../../test/db";

const db = useTestDatabase("audit_table");

async function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function insertEvent(c: pg.Client, action: string) {
  const { rows } = await c.query(
    `INSERT INTO audit_events (actor_type, actor, action, target_type, target_id, after)
     VALUES ('user', 'ops@example.com', $1, 'schedule', 'nightly', '{"enabled":false}') RETURNING id, prev_hash, hash`,
    [action],
  );
  return rows[0];
}

describe("audit_events table", () => {
  it("refuses UPDATE, DELETE and TRUNCATE at the database level", async () => {
    await withClient(async (c) => {
      const row = await insertEvent(c, "schedule.pause");
      await expect(c.query("UPDATE audit_events SET actor = 'someone-else' WHERE id = $1", [row.id])).rejects.toThrow(/append-only/);
      await expect(c.query("DELETE FROM audit_events WHERE id = $1", [row.id])).rejects.toThrow(/append-only/);
      await expect(c.query("TRUNCATE audit_events")).rejects.toThrow(/append-only/);
      const { rows } = await c.query("SELECT actor FROM audit_events WHERE id = $1", [row.id]);
      expect(rows[0].actor).toBe("ops@example.com");
    });
  });

  it("chains each row to the previous row's hash", async () => {
    await withClient(async (c) => {
      const a = await insertEvent(c, "schedule.create");
      const b = await insertEvent(c, "schedule.edit");
      expect(b.prev_hash).toBe(a.hash);
      expect(b.hash).toMatch(/^[0-9a-f]{64}$/);
      const { rows } = await c.query("SELECT * FROM vigil_audit_verify()");
      expect(rows[0].broken_id).toBeNull();
    });
  });

  it("finds a row altered behind the database's back", async () => {
    await withClient(async (c) => {
      const a = await insertEvent(c, "run.cancel");
      await insertEvent(c, "run.cancel");
      // Simulate tampering by someone who can disable triggers (superuser, restored file).
      await c.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update");
      await c.query("UPDATE audit_events SET reason = 'nothing to see' WHERE id = $1", [a.id]);
      await c.query("ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update");
      const { rows } = await c.query("SELECT * FROM vigil_audit_verify()");
      expect(Number(rows[0].broken_id)).toBe(Number(a.id));
      expect(rows[0].problem).toMatch(/content/);
    });
  });
});
