import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, testPool } from "../../test/db";
import { insertAlertSchedule } from "../../test/alert-fixtures";
import { enqueueAlertDeliveries } from "./enqueue-alert-deliveries";

const db = useTestDatabase("alert_delivery_format");
let pool: pg.Pool;
beforeAll(() => {
  pool = testPool(db.url, 2);
});
afterAll(async () => {
  await pool.end();
});

async function openAlertFor(scheduleId: string): Promise<string> {
  const { rows } = await pool.query(
    `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message, data, last_cause_at)
     VALUES ('missed', $1::uuid, 'missed:' || $1::text, 'critical', 'never started', '{}', now()) RETURNING id`,
    [scheduleId],
  );
  return rows[0].id;
}

const deliveries = async (alertId: string) =>
  (await pool.query(`SELECT url, format FROM alert_deliveries WHERE alert_id = $1 ORDER BY url`, [alertId])).rows;

describe("which format each alert delivery is queued with", () => {
  it("the schedule's URL gets the schedule's format and the global URL the global format", async () => {
    const s = await insertAlertSchedule(pool, { enabled: false, webhookUrl: "http://127.0.0.1:9/team" });
    await pool.query(`UPDATE schedules SET webhook_format = 'slack' WHERE id = $1`, [s.id]);
    const alertId = await openAlertFor(s.id);
    expect(await enqueueAlertDeliveries(pool, [alertId], "opened", "http://127.0.0.1:9/global", "vigil")).toBe(2);
    expect(await deliveries(alertId)).toEqual([
      { url: "http://127.0.0.1:9/global", format: "vigil" },
      { url: "http://127.0.0.1:9/team", format: "slack" },
    ]);
  });

  it("a global Slack-style webhook applies to schedules without their own URL; one URL named twice is sent once, in the schedule's format", async () => {
    const plain = await insertAlertSchedule(pool, { enabled: false });
    const a = await openAlertFor(plain.id);
    await enqueueAlertDeliveries(pool, [a], "opened", "http://127.0.0.1:9/chat", "slack");
    expect(await deliveries(a)).toEqual([{ url: "http://127.0.0.1:9/chat", format: "slack" }]);

    const same = await insertAlertSchedule(pool, { enabled: false, webhookUrl: "http://127.0.0.1:9/chat" });
    const b = await openAlertFor(same.id);
    await enqueueAlertDeliveries(pool, [b], "opened", "http://127.0.0.1:9/chat", "slack");
    expect(await deliveries(b)).toEqual([{ url: "http://127.0.0.1:9/chat", format: "vigil" }]);
  });

  it("the database refuses a format it does not know", async () => {
    const s = await insertAlertSchedule(pool, { enabled: false });
    await expect(pool.query(`UPDATE schedules SET webhook_format = 'teams' WHERE id = $1`, [s.id])).rejects.toThrow(
      /schedules_webhook_format_check/,
    );
  });
});
