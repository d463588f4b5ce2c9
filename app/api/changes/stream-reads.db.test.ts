// What an open tab sees through its change stream (GET /api/changes) and the reads it refetches when told: the
// schedules list's counts are current once a run's finish is named, and tabs told the same change share one answer.
import { afterEach, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
import { insertRun, insertSchedule } from "@/test/run-fixtures";
import { waitFor } from "@/test/wait-for";
import { getConsoleChangeFeed } from "@/core/console/console-change-feed";
import * as changesRoute from "./route";
import * as schedulesRoute from "../schedules/route";

const db = useTestDatabase("changes_stream_reads");
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const noParams = { params: Promise.resolve({}) };

/** A tab: its change stream, and the schedules list it refetches (conditionally) each time runs is named. */
async function openTab(token: string) {
  const abort = new AbortController();
  const res = await changesRoute.GET(
    new NextRequest(new URL("/api/changes", "http://localhost:3000"), {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    }),
    noParams,
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const tab = {
    text: "",
    runsMessages: 0,
    list: null as null | { etag: string; body: { schedules: { id: string; counts24h: { failed: number } }[] }; timing: string },
    refetches: 0,
    refetch: async () => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (tab.list) headers["if-none-match"] = tab.list.etag;
      const r = await schedulesRoute.GET(
        new NextRequest(new URL("/api/schedules?limit=50", "http://localhost:3000"), { headers }),
        noParams,
      );
      tab.refetches++;
      if (r.status === 304) return;
      expect(r.status).toBe(200);
      tab.list = { etag: r.headers.get("etag")!, body: await r.json(), timing: r.headers.get("server-timing") ?? "" };
    },
  };
  let refetching = Promise.resolve();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      tab.text += chunk;
      // As the console's change-stream.tsx does: a runs message makes the list stale, refetched at once.
      for (const m of chunk.matchAll(/event: change\ndata: (.*)\n/g)) {
        if ((JSON.parse(m[1]!) as { topics: string[] }).topics.includes("runs")) {
          tab.runsMessages++;
          refetching = refetching.then(tab.refetch);
        }
      }
    }
  })();
  closers.push(async () => {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
  await waitFor("hello", () => tab.text.includes("event: hello"));
  const feed = getConsoleChangeFeed(() => {
    throw new Error("the route did not create the feed");
  });
  await waitFor("the route's feed to read", () => feed.database === "up");
  await tab.refetch();
  return { tab, feed };
}

const failedCount = (tab: Awaited<ReturnType<typeof openTab>>["tab"], scheduleId: string) =>
  tab.list?.body.schedules.find((s) => s.id === scheduleId)?.counts24h.failed;

describe("an open tab's reads, refetched when its stream names a change", () => {
  it("the schedules list's 24 h counts are current after a run fails, even when the finish commits after the feed saw it", async () => {
    const viewer = await createTestToken(db.url, "viewer");
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
      const runId = await insertRun(pool, scheduleId);
      await pool.query(`UPDATE runs SET state = 'running', started_at = clock_timestamp() WHERE id = $1`, [runId]);
      const { tab, feed } = await openTab(viewer);
      await waitFor("the list to show the schedule", () => failedCount(tab, scheduleId) === 0);
      const c = await pool.connect();
      try {
        // The worker's finish: the triggers count the failure (and bump the console version) inside the
        // transaction; other work of the batch keeps it open a moment before it commits.
        await c.query("BEGIN");
        await c.query(`UPDATE runs SET state = 'failed', finished_at = clock_timestamp() WHERE id = $1`, [runId]);
        const reads = feed.readCount;
        await waitFor("the feed to read three times meanwhile", () => feed.readCount >= reads + 3);
        await c.query("COMMIT");
      } finally {
        c.release();
      }
      // Nothing else happens afterwards: what the tab shows must be right without another change or a safety-net poll.
      await waitFor("the list to count the failed run", () => failedCount(tab, scheduleId) === 1, { timeoutMs: 5000 });
    } finally {
      await pool.end();
    }
  });

  it("tabs told the same change get the same answer, computed once for all of them", async () => {
    const viewer = await createTestToken(db.url, "viewer");
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const scheduleId = await insertSchedule(pool, { handler: "demo.noop" });
      const tabs = [await openTab(viewer), await openTab(viewer), await openTab(viewer)].map((t) => t.tab);
      const messages = tabs.map((t) => t.runsMessages);
      const runId = await insertRun(pool, scheduleId);
      await pool.query(`UPDATE runs SET state = 'failed', started_at = clock_timestamp(), finished_at = clock_timestamp() WHERE id = $1`, [
        runId,
      ]);
      await waitFor("every tab to show the failed run", () => tabs.every((t) => failedCount(t, scheduleId) === 1), { timeoutMs: 5000 });
      expect(tabs.every((t, i) => t.runsMessages > messages[i]!)).toBe(true);
      // One answer for the version they were told about: one tab computed it, the others were handed it.
      expect(new Set(tabs.map((t) => t.list!.etag)).size).toBe(1);
      const timings = tabs.map((t) => t.list!.timing);
      expect(timings.filter((t) => t.includes("shared;desc=miss"))).toHaveLength(1);
      expect(timings.filter((t) => t.includes("shared;desc=hit"))).toHaveLength(2);
      // Asked again with that ETag (a tab's safety-net poll): 304, nothing computed.
      const again = await schedulesRoute.GET(
        new NextRequest(new URL("/api/schedules?limit=50", "http://localhost:3000"), {
          headers: { authorization: `Bearer ${viewer}`, "if-none-match": tabs[0]!.list!.etag },
        }),
        noParams,
      );
      expect(again.status).toBe(304);
    } finally {
      await pool.end();
    }
  });
});
