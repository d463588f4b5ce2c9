import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestSession, createTestToken } from "@/test/auth";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { endUserSessions } from "@/core/auth/user-sessions";
import { systemActor } from "@/core/auth/roles";
import { waitFor } from "@/test/wait-for";
import { getConsoleChangeFeed } from "@/core/console/console-change-feed";
import * as changesRoute from "./route";

const db = useTestDatabase("changes_route");

async function bumpConsoleVersion() {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`SELECT nextval('vigil_console_version')`);
  await c.end();
}

describe("GET /api/changes", () => {
  it("streams server-sent events to a viewer: hello at once, then the topics that changed", async () => {
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
    await bumpConsoleVersion();
    await readUntil('event: change\ndata: {"topics":["runs"]}');
    abort.abort();
    await reader.cancel();
  });

  it("refuses a caller without a session or token", async () => {
    const res = await changesRoute.GET(new NextRequest(new URL("/api/changes", "http://localhost:3000")), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
  });

  describe("a stream whose session is revoked meanwhile is closed within seconds (not at its 5 min end)", () => {
    /** Opens the stream as a browser would (the session cookie) and reads it until it ends or a deadline passes. */
    async function openWithSession(cookie: string) {
      const abort = new AbortController();
      const req = new NextRequest(new URL("/api/changes", "http://localhost:3000"), {
        headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
        signal: abort.signal,
      });
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
        await sql(`SELECT nextval('vigil_console_version')`);
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
