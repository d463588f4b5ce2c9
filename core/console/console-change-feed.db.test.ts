import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { waitFor } from "@/test/wait-for";
import { ConsoleChangeFeed } from "./console-change-feed";
import { getConsoleVersion } from "./console-version";
import { getRunsOverview } from "../runs/read/overview";
import { insertRun, insertSchedule } from "@/test/run-fixtures";
import type { ChangeTopic } from "./change-topics";

const db = useTestDatabase("console_change_feed");
const feeds: ConsoleChangeFeed[] = [];

afterEach(async () => {
  for (const f of feeds.splice(0)) await f.stop();
});

function startFeed(opts: Partial<ConstructorParameters<typeof ConsoleChangeFeed>[0]> = {}) {
  const feed = new ConsoleChangeFeed({ connectionString: db.url, deadAfterMs: 10_000, retryMaxMs: 500, ...opts });
  feeds.push(feed);
  const heard: { at: number; topics: ChangeTopic[] }[] = [];
  const unsubscribe = feed.subscribe((topics) => heard.push({ at: performance.now(), topics }));
  return { feed, heard, unsubscribe };
}

async function withClient<T>(fn: (c: pg.Client) => Promise<T>, url = db.url): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Until the feed's first settled read, which names every topic once; then what each subscriber heard is cleared. */
async function firstRead(feed: ConsoleChangeFeed, ...heard: unknown[][]): Promise<void> {
  await waitFor("the feed's first settled read (it names every topic)", () => feed.database === "up" && heard.every((h) => h.length > 0));
  for (const h of heard) h.length = 0;
}

/** Until the feed has read three times without naming anything (what the setup changed has all been named). */
async function quiet(feed: ConsoleChangeFeed, heard: unknown[]): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const n = heard.length;
    const reads = feed.readCount;
    await waitFor("three more reads", () => feed.readCount >= reads + 3);
    if (heard.length === n) return;
    if (performance.now() > deadline) throw new Error("the feed kept naming changes");
  }
}

const feedBackends = (c: pg.Client) =>
  c
    // This database's: another test file's feed may be open on the same server.
    .query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'vigil-console-changes' AND datname = current_database()`,
    )
    .then((r) => r.rows[0]!.n);

describe("the console change feed", () => {
  it("coalesces a burst of run changes: one message at once, then at most one per window, naming only what changed", async () => {
    // (The busy fleet's longer window is another test's.)
    const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 1000, busyIntervalMs: 1000 });
    await firstRead(feed, heard);
    await withClient(async (c) => {
      // 200 changes of the console version (what every run transition does) over ~2 s.
      const started = performance.now();
      for (let i = 0; i < 200; i++) {
        await c.query(`SELECT nextval('vigil_console_version')`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const elapsed = performance.now() - started;
      await waitFor("the last change to be heard", () => heard.length > 0 && performance.now() - heard.at(-1)!.at > 1200);
      const runs = heard.filter((h) => h.topics.includes("runs"));
      // The first within a tick of the first change; then one per 1 s window at most; the last change is not lost.
      expect(runs[0]!.at - started).toBeLessThan(200 + 300);
      expect(runs.length).toBeLessThanOrEqual(Math.ceil(elapsed / 1000) + 1);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(990);
      expect(runs.at(-1)!.at).toBeGreaterThanOrEqual(started + elapsed - 50);
      expect(heard.every((h) => h.topics.length === 1 && h.topics[0] === "runs")).toBe(true);

      heard.length = 0;
      await c.query(
        `INSERT INTO alerts (kind, dedupe_key, message, severity) VALUES ('no_worker', 'feed-test', 'no live worker', 'critical')`,
      );
      await waitFor("the alert to be heard", () => heard.some((h) => h.topics.includes("alerts")));
      // A webhook delivery of it ends (the alerts page shows each delivery's state).
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO alert_deliveries (alert_id, event, url) SELECT id, 'opened', 'http://127.0.0.1:9/' FROM alerts WHERE dedupe_key = 'feed-test' RETURNING id`,
      );
      await waitFor("the new delivery to be heard", () => heard.filter((h) => h.topics.includes("alerts")).length >= 2);
      await c.query(`UPDATE alert_deliveries SET state = 'failed', attempts = 1 WHERE id = $1`, [rows[0]!.id]);
      await waitFor("the delivery's end to be heard", () => heard.filter((h) => h.topics.includes("alerts")).length >= 3);
      expect(heard.flatMap((h) => h.topics)).not.toContain("runs");
    });
  });

  it("one connection serves every subscriber, and it is closed a while after the last one leaves", async () => {
    const feed = new ConsoleChangeFeed({ connectionString: db.url, deadAfterMs: 10_000, idleCloseMs: 300 });
    feeds.push(feed);
    const a: ChangeTopic[][] = [];
    const b: ChangeTopic[][] = [];
    const offA = feed.subscribe((t) => a.push(t));
    const offB = feed.subscribe((t) => b.push(t));
    await firstRead(feed, a, b);
    await withClient(async (c) => {
      expect(await feedBackends(c)).toBe(1);
      await c.query(`SELECT nextval('vigil_console_version')`);
      await waitFor("both subscribers to hear it", () => a.length > 0 && b.length > 0);
      offA();
      offB();
      await waitFor("the idle feed to close its connection", async () => (await feedBackends(c)) === 0, { timeoutMs: 5000 });
    });
  });

  it("survives losing its connection and the database refusing connections: says health, then everything once it is back", async () => {
    const { feed, heard } = startFeed({ tickMs: 200 });
    await firstRead(feed, heard);
    const dbName = new URL(db.url).pathname.slice(1);
    // From another database: a database cannot refuse connections while the session doing so is in it.
    await withClient(async (c) => {
      // The database goes away for new connections, and the feed's own connection is cut.
      await c.query(`ALTER DATABASE ${pg.escapeIdentifier(dbName)} WITH ALLOW_CONNECTIONS false`);
      try {
        await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'vigil-console-changes'`);
        await waitFor("the feed to say the database is down", () => feed.database === "down");
        expect(heard.at(-1)!.topics).toEqual(["health"]);
        // It keeps trying (and failing) meanwhile, without a second "health".
        await new Promise((r) => setTimeout(r, 1200));
        expect(feed.database).toBe("down");
        expect(heard.filter((h) => h.topics.includes("health"))).toHaveLength(1);
      } finally {
        await c.query(`ALTER DATABASE ${pg.escapeIdentifier(dbName)} WITH ALLOW_CONNECTIONS true`);
      }
      await waitFor("the feed to reconnect", () => feed.database === "up", { timeoutMs: 5000 });
      expect(heard.at(-1)!.topics.sort()).toEqual(["alerts", "attention", "health", "runs", "schedules", "workers"]);
      // And it reports changes again on its new connection (below).
    }, db.adminUrl);
    heard.length = 0;
    await withClient((c) => c.query(`SELECT nextval('vigil_console_version')`));
    await waitFor("a change after the reconnect", () => heard.some((h) => h.topics.includes("runs")));
  });

  it("health changes when the fleet gains its first live worker", async () => {
    const { feed, heard } = startFeed({ tickMs: 200 });
    await firstRead(feed, heard);
    await withClient((c) => c.query(`INSERT INTO workers (id, host, pid, version) VALUES ('feed-test-worker', 'h', 1, 'test')`));
    await waitFor("health and workers to be heard", () => {
      const all = heard.flatMap((h) => h.topics);
      return all.includes("health") && all.includes("workers");
    });
  });

  // No worker runs in this file: nothing writes a row while these instants pass, only the clock moves.
  describe("instants that only the clock passes", () => {
    it("a troubled run sliding out of the header's last hour: names attention (not runs), and the overview's tag moves", async () => {
      const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 200 });
      await firstRead(feed, heard);
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
        // A run that failed 59 min 57 s ago: counted by the header for 3 more seconds.
        await pool.query(
          `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                             started_at, finished_at, updated_at)
           SELECT $1, t, t, gen_random_uuid()::text, 'failed', 'demo.noop', 60, 5, t, t, t
             FROM (SELECT clock_timestamp() - interval '59 minutes 57 seconds' AS t) x`,
          [scheduleId],
        );
        await waitFor("the insert to be heard", () => heard.some((h) => h.topics.includes("runs")));
        const before = await getRunsOverview(pool);
        expect(before.lastHour.failed).toBe(1);
        const tagBefore = await getConsoleVersion(pool, "attention");
        await quiet(feed, heard);
        heard.length = 0;
        const heardAt = await waitFor(
          "attention to be named once the run left the window",
          () => heard.find((h) => h.topics.includes("attention"))?.at,
          { timeoutMs: 8000 },
        );
        const after = await getRunsOverview(pool);
        expect(after.lastHour.failed).toBe(0);
        expect(await getConsoleVersion(pool, "attention")).not.toBe(tagBefore);
        // The header's topic alone: the schedules list and the timeline are not re-read for it.
        expect(heard.filter((h) => h.at <= heardAt).flatMap((h) => h.topics)).not.toContain("runs");
      } finally {
        await pool.end();
      }
    });

    it("a pause and a maintenance window reaching their until: names schedules, and the schedules list's tag moves", async () => {
      const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 200 });
      await firstRead(feed, heard);
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
        await pool.query(
          `UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test', paused_until = clock_timestamp() + interval '2 seconds'
            WHERE id = $1`,
          [scheduleId],
        );
        await waitFor("the pause to be heard", () => heard.some((h) => h.topics.includes("schedules")));
        const tagBefore = await getConsoleVersion(pool, "pauses");
        heard.length = 0;
        await waitFor("schedules to be named once the pause is over", () => heard.some((h) => h.topics.includes("schedules")), {
          timeoutMs: 8000,
        });
        const { rows } = await pool.query(
          `SELECT paused_at IS NOT NULL AS recorded, paused_until <= clock_timestamp() AS over FROM schedules WHERE id = $1`,
          [scheduleId],
        );
        // Nothing resumed it (no planner here): only the clock passed its until.
        expect(rows[0]).toEqual({ recorded: true, over: true });
        expect(await getConsoleVersion(pool, "pauses")).not.toBe(tagBefore);

        heard.length = 0;
        await pool.query(
          `INSERT INTO maintenance_windows (reason, until, started_by) VALUES ('feed test', clock_timestamp() + interval '2 seconds', 'test')`,
        );
        await waitFor("the window's start to be heard", () => heard.some((h) => h.topics.includes("schedules")));
        heard.length = 0;
        await waitFor("schedules to be named once the window is over", () => heard.some((h) => h.topics.includes("schedules")), {
          timeoutMs: 8000,
        });
        // Only the clock passed: no run and no schedule row changed.
        expect(heard.flatMap((h) => h.topics)).not.toContain("runs");
        const open = await pool.query(`SELECT count(*)::int AS n FROM maintenance_windows WHERE until > clock_timestamp()`);
        expect(open.rows[0].n).toBe(0);
      } finally {
        await pool.end();
      }
    });
  });
});

describe("what the feed names, and when", () => {
  const insertFailedRun = (c: pg.Pool | pg.Client, scheduleId: string) =>
    c.query(
      `INSERT INTO runs (schedule_id, planned_at, due_at, idempotency_key, state, handler, timeout_seconds, grace_seconds,
                         started_at, finished_at, updated_at)
       SELECT $1, t, t, gen_random_uuid()::text, 'failed', 'demo.noop', 60, 5, t, t, t FROM (SELECT clock_timestamp() AS t) x`,
      [scheduleId],
    );

  it("a change is named only once the transaction that made it has committed, so a tab that refetches at once sees it", async () => {
    const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 200, maxSettleMs: 60_000 });
    await firstRead(feed, heard);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
      await waitFor("the new schedule to be heard", () => heard.some((h) => h.topics.includes("runs")));
      const before = (await getRunsOverview(pool)).lastHour.failed;
      await quiet(feed, heard);
      const shared = feed.sharedVersion(["runs"]);
      heard.length = 0;
      await withClient(async (c) => {
        await c.query("BEGIN");
        // The triggers bump the console version now, long before the commit (a finishing batch of runs).
        await insertFailedRun(c, scheduleId);
        const reads = feed.readCount;
        await waitFor("the feed to read three more times", () => feed.readCount >= reads + 3);
        expect(heard.flatMap((h) => h.topics)).not.toContain("runs");
        expect(feed.sharedVersion(["runs"])).toBe(shared);
        await c.query("COMMIT");
      });
      const committedAt = performance.now();
      const heardAt = await waitFor("runs to be named after the commit", () => heard.find((h) => h.topics.includes("runs"))?.at);
      expect(heardAt - committedAt).toBeLessThan(1000);
      // What a tab reads when told: the committed run.
      expect((await getRunsOverview(pool)).lastHour.failed).toBe(before + 1);
      expect(feed.sharedVersion(["runs"])).not.toBe(shared);
    } finally {
      await pool.end();
    }
  });

  it("a change made while the feed's first read waits to settle is named (a run triggered and finished at once was not)", async () => {
    await withClient(async (holder) => {
      // A writer in progress when the feed starts: its first read cannot settle until this one ends.
      await holder.query("BEGIN");
      await holder.query(`SELECT nextval('vigil_console_schedules_version')`);
      await holder.query(`SELECT pg_current_xact_id()`);
      const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 200, maxSettleMs: 60_000 });
      await waitFor("the feed's first read", () => feed.database === "up" && feed.readCount >= 1);
      expect(heard).toHaveLength(0);
      // The tab said hello and refetched around now. Then a run is triggered and finishes before anything settles.
      await withClient(async (c) => {
        await c.query(`SELECT nextval('vigil_console_version')`);
      });
      await holder.query("COMMIT");
      // The next read settles the first one and the change together: there was no settled read before it.
      await waitFor("runs to be named", () => heard.some((h) => h.topics.includes("runs")), { timeoutMs: 5000 });
    });
  });

  it("a run's change names runs but not schedules; a schedule's pause names schedules (the maintenance banner's topic)", async () => {
    const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 200 });
    await firstRead(feed, heard);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
      await waitFor("the new schedule to be heard", () => heard.some((h) => h.topics.includes("schedules")));
      await quiet(feed, heard);
      heard.length = 0;
      await insertFailedRun(pool, scheduleId);
      await pool.query(`UPDATE runs SET state = 'succeeded' WHERE schedule_id = $1`, [scheduleId]);
      await waitFor("the runs to be heard", () => heard.some((h) => h.topics.includes("runs")));
      const reads = feed.readCount;
      await waitFor("the feed to read twice more", () => feed.readCount >= reads + 2);
      expect(heard.flatMap((h) => h.topics)).not.toContain("schedules");
      heard.length = 0;
      await pool.query(`UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test' WHERE id = $1`, [scheduleId]);
      await waitFor("the pause to be heard as schedules", () => heard.some((h) => h.topics.includes("schedules")));
    } finally {
      await pool.end();
    }
  });

  it("while the fleet is busy, runs is named at most once per busy window; quiet again, a change is named at once", async () => {
    const { feed, heard } = startFeed({
      tickMs: 100,
      minIntervalMs: 200,
      busyIntervalMs: 1500,
      busyChangesPerSecond: 20,
      busyWindowMs: 1000,
    });
    await firstRead(feed, heard);
    await withClient(async (c) => {
      const started = performance.now();
      while (performance.now() - started < 4000) {
        await c.query(`SELECT nextval('vigil_console_version') FROM generate_series(1, 5)`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(feed.busy).toBe(true);
      const runs = heard.filter((h) => h.topics.includes("runs") && h.at > started + 1200);
      expect(runs.length).toBeGreaterThan(0);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.at - runs[i - 1]!.at).toBeGreaterThanOrEqual(1490);
      // Quiet for a window: no longer busy, and one change goes out within a tick or two.
      await waitFor("the fleet to be quiet", () => !feed.busy && performance.now() - heard.at(-1)!.at > 1600, { timeoutMs: 5000 });
      heard.length = 0;
      const changedAt = performance.now();
      await c.query(`SELECT nextval('vigil_console_version')`);
      const heardAt = await waitFor("the quiet change to be named", () => heard.find((h) => h.topics.includes("runs"))?.at);
      expect(heardAt - changedAt).toBeLessThan(600);
    });
  });

  it("tabs share one version between messages; a write through this console suspends it and is named at once", async () => {
    const { feed, heard } = startFeed({ tickMs: 200, minIntervalMs: 5000, busyIntervalMs: 5000 });
    await firstRead(feed, heard);
    await waitFor("a shared version", () => feed.sharedVersion(["runs", "schedules", "attention"]));
    const v1 = feed.sharedVersion(["runs", "schedules", "attention"]);
    await withClient(async (c) => {
      await c.query(`SELECT nextval('vigil_console_version')`);
      await waitFor("runs to be named", () => heard.some((h) => h.topics.includes("runs")));
      const v2 = feed.sharedVersion(["runs", "schedules", "attention"]);
      expect(v2).not.toBe(v1);
      // Another change within the topic's 5 s window waits, and the version the tabs share stays.
      await c.query(`SELECT nextval('vigil_console_version')`);
      const reads = feed.readCount;
      await waitFor("the feed to read twice more", () => feed.readCount >= reads + 2);
      expect(feed.sharedVersion(["runs", "schedules", "attention"])).toBe(v2);
      // A write made through this console (an API mutation): named at once, the version not shared meanwhile.
      heard.length = 0;
      await c.query(`SELECT nextval('vigil_console_version')`);
      const wroteAt = performance.now();
      feed.noteLocalWrite();
      expect(feed.sharedVersion(["runs", "schedules", "attention"])).toBeNull();
      const heardAt = await waitFor("the local write to be named", () => heard.find((h) => h.topics.includes("runs"))?.at);
      expect(heardAt - wroteAt).toBeLessThan(1000);
      const v3 = await waitFor("a shared version again", () => feed.sharedVersion(["runs", "schedules", "attention"]));
      expect(v3).not.toBe(v2);
    });
  });
});

describe("per team: a subscriber hears of runs, schedules and alerts only in the teams it sees", () => {
  it("team A's subscriber hears nothing of team B's run, schedule or alert, and hears its own; the global admin hears both", async () => {
    const feed = new ConsoleChangeFeed({ connectionString: db.url, deadAfterMs: 10_000, retryMaxMs: 500, tickMs: 150, minIntervalMs: 150 });
    feeds.push(feed);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const team = async (name: string) =>
        (await pool.query<{ id: string }>(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`${name}-${Date.now().toString(36)}`]))
          .rows[0]!.id;
      const [teamA, teamB] = [await team("feed-a"), await team("feed-b")];
      const schedule = async (teamId: string) => {
        const id = await insertSchedule(pool, { handler: "demo.noop" });
        await pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [id, teamId]);
        return id;
      };
      const [scheduleA, scheduleB] = [await schedule(teamA), await schedule(teamB)];
      const admin: ChangeTopic[][] = [];
      const a: ChangeTopic[][] = [];
      const b: ChangeTopic[][] = [];
      feed.subscribe((t) => admin.push(t));
      feed.subscribe((t) => a.push(t), undefined, [teamA]);
      feed.subscribe((t) => b.push(t), undefined, [teamB]);
      await firstRead(feed, admin, a, b);
      await quiet(feed, admin);
      a.length = b.length = admin.length = 0;
      const heard = (h: ChangeTopic[][], t: ChangeTopic) => h.some((x) => x.includes(t));
      // Each change is named to every subscriber concerned in one message, so once B has heard it A would have too.
      const onlyB = async (what: string, topic: ChangeTopic, change: () => Promise<unknown>) => {
        a.length = b.length = admin.length = 0;
        await change();
        await waitFor(`B and the admin to hear ${what} as ${topic}`, () => heard(b, topic) && heard(admin, topic));
        expect(a.flat(), `A heard of ${what}`).not.toContain(topic);
      };
      const alsoA = async (what: string, topic: ChangeTopic, change: () => Promise<unknown>) => {
        a.length = 0;
        await change();
        await waitFor(`A to hear ${what} as ${topic}`, () => heard(a, topic));
      };

      await onlyB("B's new run", "runs", () => insertRun(pool, scheduleB));
      await alsoA("A's new run", "runs", () => insertRun(pool, scheduleA));
      await onlyB("B's run starting", "runs", () =>
        pool.query(`UPDATE runs SET state = 'running', started_at = clock_timestamp() WHERE schedule_id = $1`, [scheduleB]),
      );
      await onlyB("B's schedule paused", "schedules", () =>
        pool.query(`UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test' WHERE id = $1`, [scheduleB]),
      );
      await alsoA("A's schedule paused", "schedules", () =>
        pool.query(`UPDATE schedules SET paused_at = clock_timestamp(), paused_by = 'test' WHERE id = $1`, [scheduleA]),
      );
      const alert = (scheduleId: string | null) =>
        pool.query(
          `INSERT INTO alerts (kind, schedule_id, dedupe_key, severity, message) VALUES ('missed', $1, gen_random_uuid()::text, 'warning', 'test')`,
          [scheduleId],
        );
      await onlyB("B's alert", "alerts", () => alert(scheduleB));
      await onlyB("B's alert resolved", "alerts", () =>
        pool.query(`UPDATE alerts a SET resolved_at = clock_timestamp() FROM schedules s WHERE s.id = a.schedule_id AND s.team_id = $1`, [
          teamB,
        ]),
      );
      await alsoA("A's alert", "alerts", () => alert(scheduleA));
      // An alert about no schedule is everyone's (every alert list shows it).
      await alsoA("an alert about no schedule", "alerts", () => alert(null));

      // A change no team's rows show (the console version bumped alone): the admin hears runs, A and B nothing.
      await quiet(feed, admin);
      a.length = b.length = admin.length = 0;
      await pool.query(`SELECT nextval('vigil_console_version')`);
      await waitFor("the admin to hear runs", () => heard(admin, "runs"));
      expect([...a.flat(), ...b.flat()]).not.toContain("runs");
    } finally {
      await pool.end();
    }
  });
  it("a team's change held by a transaction open past maxSettleMs is named to that team once it commits", async () => {
    const feed = new ConsoleChangeFeed({
      connectionString: db.url,
      deadAfterMs: 10_000,
      tickMs: 100,
      minIntervalMs: 100,
      maxSettleMs: 300,
    });
    feeds.push(feed);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const teamA = (
        await pool.query<{ id: string }>(`INSERT INTO teams (name) VALUES ($1) RETURNING id`, [`feed-long-${Date.now().toString(36)}`])
      ).rows[0]!.id;
      const scheduleA = await insertSchedule(pool, { handler: "demo.noop" });
      await pool.query(`UPDATE schedules SET team_id = $2 WHERE id = $1`, [scheduleA, teamA]);
      const admin: ChangeTopic[][] = [];
      const a: ChangeTopic[][] = [];
      feed.subscribe((t) => admin.push(t));
      feed.subscribe((t) => a.push(t), undefined, [teamA]);
      await firstRead(feed, admin, a);
      await quiet(feed, admin);
      a.length = admin.length = 0;
      const c = await pool.connect();
      try {
        await c.query("BEGIN");
        await insertRun(c as unknown as pg.Client, scheduleA);
        // Named anyway after maxSettleMs (unsettled): the admin hears runs; A's row is not visible yet.
        await waitFor("the unsettled change to be named to the admin", () => admin.some((t) => t.includes("runs")));
        expect(a.flat()).not.toContain("runs");
        await c.query("COMMIT");
      } finally {
        c.release();
      }
      await waitFor("A to hear its run once it committed", () => a.some((t) => t.includes("runs")));
    } finally {
      await pool.end();
    }
  });
});
