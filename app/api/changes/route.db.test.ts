import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import pg from "pg";
import { useTestDatabase } from "@/test/db";
import { createTestToken } from "@/test/auth";
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
});
