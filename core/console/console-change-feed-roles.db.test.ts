// The change feed's "settled before named" with the least-privilege logins npm start and the e2e suite use
// (test/role-database.ts): the console's login reads the signatures, the worker's writes the runs. pg_stat_activity
// hides another role's query text from the console's login, but not its sessions' transaction ids (backend_xid), so
// the feed waits for the worker's transactions as it does for its own: a tab told of a run's change reads it.
import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { waitFor } from "@/test/wait-for";
import { insertSchedule } from "@/test/run-fixtures";
import { setUpRoleDatabase, type RoleUrls } from "@/test/role-database";
import { getScheduleLateness } from "../metrics/get-schedule-lateness";
import { ConsoleChangeFeed } from "./console-change-feed";
import type { ChangeTopic } from "./change-topics";

const db = useTestDatabase("console_change_feed_roles");
let roles: RoleUrls;

beforeAll(async () => {
  roles = await setUpRoleDatabase(db.adminUrl, db.url);
});

/** The version conditional-json.ts shares for answers that follow runs and schedules (the schedules list). */
const ROUTE_TOPICS: ChangeTopic[] = ["runs", "schedules"];

describe("the change feed with the console's and the worker's own logins", () => {
  it("a manual run going queued → running → hollow in the worker's transactions is named after each commit, to a team's subscriber too", async () => {
    const owner = new pg.Pool({ connectionString: db.url, max: 2 });
    const asConsole = new pg.Pool({ connectionString: roles.console, max: 2 });
    const worker = new pg.Client({ connectionString: roles.worker });
    await worker.connect();
    const feed = new ConsoleChangeFeed({
      connectionString: roles.console,
      deadAfterMs: 10_000,
      tickMs: 100,
      minIntervalMs: 400,
      maxSettleMs: 60_000,
    });
    try {
      const team = (
        await owner.query<{ id: string }>(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`roles-${Date.now().toString(36)}`])
      ).rows[0]!.id;
      const scheduleId = await insertSchedule(owner, { handler: "demo.noop", expectRecordsMin: 1 });
      await owner.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [scheduleId, team]);
      const admin: { at: number; topics: ChangeTopic[] }[] = [];
      const mine: { at: number; topics: ChangeTopic[] }[] = [];
      feed.subscribe((topics) => admin.push({ at: performance.now(), topics }));
      feed.subscribe((topics) => mine.push({ at: performance.now(), topics }), undefined, [team]);
      await waitFor("the feed's first read to name every topic", () => feed.database === "up" && admin.length > 0 && mine.length > 0);
      const quietReads = async () => {
        for (;;) {
          const n = admin.length;
          const reads = feed.readCount;
          await waitFor("three more reads", () => feed.readCount >= reads + 3);
          if (admin.length === n) return;
        }
      };
      await quietReads();
      const heardRuns = (h: { at: number; topics: ChangeTopic[] }[], after: number) =>
        h.some((x) => x.at > after && x.topics.includes("runs"));

      // The console triggers the run (its own login; an API write notes it).
      const { rows } = await asConsole.query<{ id: string }>(
        `INSERT INTO runs (schedule_id, kind, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds)
         SELECT $1, 'manual', t, t, 'manual:' || gen_random_uuid(), 'queued', 'demo.noop', 60, 5 FROM (SELECT clock_timestamp() AS t) x
         RETURNING id`,
        [scheduleId],
      );
      const runId = rows[0]!.id;
      const triggeredAt = performance.now();
      feed.noteLocalWrite();
      await waitFor("the trigger to be named to the team's subscriber", () => heardRuns(mine, triggeredAt));
      await waitFor("a shared version again", () => feed.sharedVersion(ROUTE_TOPICS));

      // The worker starts it, then records its hollow outcome, each in a transaction that the feed reads while open
      // (on a loaded machine a commit waits for its WAL flush while the version it bumped is already visible).
      const lateness = async () => (await getScheduleLateness(owner, scheduleId, 6)).points.filter((p) => p.startedAt !== null).length;
      const steps = [
        { what: "running", sql: `UPDATE runs SET state = 'running', attempt = 1, started_at = clock_timestamp() WHERE id = $1` },
        { what: "hollow", sql: `UPDATE runs SET state = 'hollow', finished_at = clock_timestamp(), records = 0 WHERE id = $1` },
      ];
      // What the settle check relies on: the console's login sees the worker's transaction id, not its query.
      await worker.query("BEGIN");
      await worker.query(`SELECT pg_current_xact_id()`);
      const { rows: seen } = await asConsole.query<{ xid: string | null; query: string | null }>(
        `SELECT backend_xid::text AS xid, query FROM pg_stat_activity WHERE pid = $1`,
        [(worker as unknown as { processID: number }).processID],
      );
      await worker.query("COMMIT");
      expect(seen[0]?.xid).not.toBeNull();
      expect(seen[0]?.query).not.toContain("pg_current_xact_id");
      for (const step of steps) {
        const shared = feed.sharedVersion(ROUTE_TOPICS);
        expect(shared).not.toBeNull();
        await worker.query("BEGIN");
        await worker.query(step.sql, [runId]);
        const since = performance.now();
        const reads = feed.readCount;
        await waitFor("the feed to read five times while the worker's transaction is open", () => feed.readCount >= reads + 5);
        // Not named while the rows a tab would refetch are not visible yet, and the shared version stays.
        expect(heardRuns(admin, since), `runs named before the worker's ${step.what} committed`).toBe(false);
        expect(heardRuns(mine, since)).toBe(false);
        expect(feed.sharedVersion(ROUTE_TOPICS)).toBe(shared);
        await worker.query("COMMIT");
        const committedAt = performance.now();
        await waitFor(
          `runs to be named to both after the ${step.what} commit`,
          () => heardRuns(admin, committedAt) && heardRuns(mine, committedAt),
        );
        const moved = await waitFor("the shared version to move", () => {
          const v = feed.sharedVersion(ROUTE_TOPICS);
          return v !== null && v !== shared ? v : undefined;
        });
        expect(moved).not.toBe(shared);
      }
      // What the lateness card reads when told: the run started.
      expect(await lateness()).toBe(1);
    } finally {
      await feed.stop();
      await worker.end();
      await asConsole.end();
      await owner.end();
    }
  });
});
