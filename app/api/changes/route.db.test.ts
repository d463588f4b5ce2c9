import { afterAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestSession, createTestToken } from "@/test/auth";
import { SESSION_COOKIE, sha256Hex } from "@/core/auth/authenticate";
import { revokeApiToken } from "@/core/auth/revoke-api-token";
import { endUserSessions } from "@/core/auth/user-sessions";
import { systemActor } from "@/core/auth/roles";
import { waitFor } from "@/test/wait-for";
import { getConsoleChangeFeed } from "@/core/console/console-change-feed";
import { getEnv } from "@/core/env";
import { insertRun, insertSchedule } from "@/test/run-fixtures";
import * as changesRoute from "./route";

const db = useTestDatabase("changes_route");

let scheduleId: Promise<string> | null = null;

/** A run of the default team's schedule changes (the test callers are of the default team: a stream names only its teams'). */
async function changeARun() {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    await insertRun(c, await (scheduleId ??= insertSchedule(c, { handler: "demo.noop" })));
  } finally {
    await c.end();
  }
}

describe("GET /api/changes", () => {
  it("streams server-sent events to a viewer: hello at once, then the topics that changed", async () => {
    await changeARun(); // the schedule exists before the stream opens: the change below is a run's alone
    const viewer = await createTestToken(db.url, "viewer");
    const abort = new AbortController();
    const req = new NextRequest(new URL("/api/changes", "http://localhost:3000"), {
      headers: { authorization: `Bearer ${viewer}` },
      signal: abort.signal,
    });
    const res = await changesRoute.GET(req, { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toContain("no-transform");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      const deadline = performance.now() + 10_000;
      while (!text.includes(needle)) {
        if (performance.now() > deadline) throw new Error(`no ${needle} in ${text}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil("event: hello");
    // The process's feed starts lazily; once it has read, a change is streamed.
    const feed = getConsoleChangeFeed(() => {
      throw new Error("the route did not create the feed");
    });
    await waitFor("the route's feed to read", () => feed.database === "up");
    await changeARun();
    await readUntil('event: change\ndata: {"topics":["runs"]}');
    abort.abort();
    await reader.cancel();
  });

  it("names a team's runs only to the streams of callers who see that team", async () => {
    await changeARun();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const other = await c
      .query<{ id: string }>(`INSERT INTO teams (name) VALUES ('changes-other') RETURNING id`)
      .then((r) => r.rows[0]!.id)
      .finally(() => c.end());
    const open = async (token: string) => {
      const abort = new AbortController();
      const req = new NextRequest(new URL("/api/changes", "http://localhost:3000"), {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      });
      const res = await changesRoute.GET(req, { params: Promise.resolve({}) });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      const s = { text: "" };
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) break;
          s.text += decoder.decode(value, { stream: true });
        }
      })();
      await waitFor("hello", () => s.text.includes("event: hello"));
      return { s, close: () => (abort.abort(), reader.cancel().catch(() => undefined)) };
    };
    const mine = await open(await createTestToken(db.url, "viewer"));
    const theirs = await open(await createTestToken(db.url, "viewer", { teamId: other }));
    try {
      const feed = getConsoleChangeFeed(() => {
        throw new Error("the route did not create the feed");
      });
      await waitFor("the route's feed to read", () => feed.database === "up");
      const [mineAt, theirsAt] = [mine.s.text.length, theirs.s.text.length];
      await changeARun();
      // Both streams are told by the same message: once the default team's viewer has it, the other would have too.
      await waitFor("the default team's viewer to hear runs", () => mine.s.text.slice(mineAt).includes('"runs"'));
      expect(theirs.s.text.slice(theirsAt)).not.toContain('"runs"');
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it("refuses a caller without a session or token", async () => {
    const res = await changesRoute.GET(new NextRequest(new URL("/api/changes", "http://localhost:3000")), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
  });

  describe("a stream whose session is revoked meanwhile is closed within seconds (not at its 5 min end)", () => {
    let shared: pg.Pool | null = null;
    const pool = () => (shared ??= new pg.Pool({ connectionString: db.url, max: 2 }));
    afterAll(async () => {
      await shared?.end();
    });

    /** Opens the stream as a browser would (the session cookie) and reads it until it ends or a deadline passes. */
    const openWithSession = (cookie: string) => openWith({ cookie: `${SESSION_COOKIE}=${cookie}` });
    /** … or as a script would (an API token). */
    const openWithBearer = (token: string) => openWith({ authorization: `Bearer ${token}` });

    async function openWith(headers: Record<string, string>) {
      const abort = new AbortController();
      const req = new NextRequest(new URL("/api/changes", "http://localhost:3000"), { headers, signal: abort.signal });
      const res = await changesRoute.GET(req, { params: Promise.resolve({}) });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      const stream = { text: "", ended: false, endedAt: 0 };
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) break;
          stream.text += decoder.decode(value, { stream: true });
        }
        stream.ended = true;
        stream.endedAt = performance.now();
      })();
      await waitFor("hello", () => stream.text.includes("event: hello"));
      const feed = getConsoleChangeFeed(() => {
        throw new Error("the route did not create the feed");
      });
      await waitFor("the route's feed to read", () => feed.database === "up");
      return {
        stream,
        close: async () => {
          abort.abort();
          await reader.cancel().catch(() => undefined);
        },
      };
    }

    async function sql(text: string, params: unknown[] = []) {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        await c.query(text, params);
      } finally {
        await c.end();
      }
    }

    async function expectClosedSoonAfter(revoke: () => Promise<unknown>, stream: { text: string; ended: boolean; endedAt: number }) {
      const revokedAt = performance.now();
      await revoke();
      await waitFor("the stream to end", () => stream.ended, { timeoutMs: 5000 });
      expect(stream.endedAt - revokedAt).toBeLessThan(3000);
      expect(stream.text).toContain('event: bye\ndata: {"reason":"credentials"}');
    }

    it("signed out elsewhere (an admin ends the user's sessions); another user's sign-out leaves a stream open", async () => {
      const alice = await createTestSession(db.url, "operator");
      const bob = await createTestSession(db.url, "viewer");
      const a = await openWithSession(alice.cookie);
      const b = await openWithSession(bob.cookie);
      try {
        await expectClosedSoonAfter(() => endUserSessions(alice.userId, systemActor("test")), a.stream);
        // Bob's stream heard the same notification, checked, and stays.
        await changeARun();
        await waitFor("bob to still hear changes", () => b.stream.text.includes("event: change"));
        expect(b.stream.ended).toBe(false);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("the user disabled", async () => {
      const user = await createTestSession(db.url, "viewer");
      const s = await openWithSession(user.cookie);
      try {
        await expectClosedSoonAfter(() => sql(`UPDATE users SET disabled_at = clock_timestamp() WHERE id = $1`, [user.userId]), s.stream);
      } finally {
        await s.close();
      }
    });

    it("an API token revoked (a script's stream, opened with a bearer token)", async () => {
      const token = await createTestToken(db.url, "viewer");
      const s = await openWithBearer(token);
      try {
        const { rows } = await pool().query<{ id: string }>(`SELECT id FROM api_tokens WHERE token_hash = $1`, [sha256Hex(token)]);
        await expectClosedSoonAfter(() => revokeApiToken(rows[0]!.id, systemActor("test")), s.stream);
      } finally {
        await s.close();
      }
    });

    it("a session that expires (nothing revoked it: the stream ends at its expiry, not at the stream's 5 min end)", async () => {
      const user = await createTestSession(db.url, "viewer");
      await sql(`UPDATE sessions SET expires_at = clock_timestamp() + interval '2 seconds' WHERE user_id = $1`, [user.userId]);
      const s = await openWithSession(user.cookie);
      try {
        const { rows } = await pool().query<{ ms: number }>(
          `SELECT extract(epoch FROM expires_at - clock_timestamp())::float8 * 1000 AS ms FROM sessions WHERE user_id = $1`,
          [user.userId],
        );
        const expiresAt = performance.now() + rows[0]!.ms;
        await waitFor("the stream to end", () => s.stream.ended, { timeoutMs: 8000 });
        expect(s.stream.endedAt - expiresAt).toBeGreaterThan(-100);
        expect(s.stream.endedAt - expiresAt).toBeLessThan(1500);
        expect(s.stream.text).toContain('event: bye\ndata: {"reason":"credentials"}');
      } finally {
        await s.close();
      }
    });

    it("an API token that expires", async () => {
      const token = await createTestToken(db.url, "viewer");
      await sql(`UPDATE api_tokens SET expires_at = clock_timestamp() + interval '2 seconds' WHERE token_hash = $1`, [sha256Hex(token)]);
      const s = await openWithBearer(token);
      try {
        await waitFor("the stream to end", () => s.stream.ended, { timeoutMs: 8000 });
        expect(s.stream.text).toContain('event: bye\ndata: {"reason":"credentials"}');
      } finally {
        await s.close();
      }
    });

    it("the user's role changed", async () => {
      const user = await createTestSession(db.url, "admin");
      const s = await openWithSession(user.cookie);
      try {
        await expectClosedSoonAfter(() => sql(`UPDATE users SET role = 'viewer' WHERE id = $1`, [user.userId]), s.stream);
      } finally {
        await s.close();
      }
    });
  });
});

describe("change streams per session", () => {
  it("the stream past VIGIL_CHANGE_STREAMS_PER_SESSION answers 429 JSON; another session is not counted; a closed stream frees its slot", async () => {
    const max = getEnv().VIGIL_CHANGE_STREAMS_PER_SESSION;
    const token = await createTestToken(db.url, "viewer");
    const { cookie } = await createTestSession(db.url, "viewer");
    const open = async (headers: Record<string, string>) => {
      const abort = new AbortController();
      const req = new NextRequest(new URL("/api/changes", "http://localhost:3000"), { headers, signal: abort.signal });
      const res = await changesRoute.GET(req, { params: Promise.resolve({}) });
      return { res, close: async () => (abort.abort(), await res.body?.cancel().catch(() => undefined)) };
    };
    const bearer = { authorization: `Bearer ${token}` };
    const streams = [];
    for (let i = 0; i < max; i++) {
      const s = await open(bearer);
      expect(s.res.status).toBe(200);
      streams.push(s);
    }
    const refused = await open(bearer);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get("content-type")).toContain("application/json");
    expect(refused.res.headers.get("retry-after")).toBeTruthy();
    expect((await refused.res.json()).error).toMatchObject({
      code: "rate_limited",
      message: expect.stringContaining(`${max} change streams`),
    });
    // Another session (another browser) has its own slots.
    const other = await open({ cookie: `${SESSION_COOKIE}=${cookie}` });
    expect(other.res.status).toBe(200);
    await other.close();
    // Closing one gives its slot back.
    await streams.pop()!.close();
    const again = await open(bearer);
    expect(again.res.status).toBe(200);
    streams.push(again);
    await Promise.all(streams.map((s) => s.close()));
  });
});
