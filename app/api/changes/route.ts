// GET /api/changes → text/event-stream: which topics (runs, alerts, workers, health) changed, at most once a second
// each, so an open console reloads what changed instead of polling everything every 2 s. One database connection per
// console process feeds every tab (core/console/console-change-feed.ts); the events are described in
// core/console/change-event-stream.ts. Viewers may listen: it says only that something changed, never what, and of
// runs, schedules and alerts only in the caller's teams.
import { z } from "zod";
import { accessVariant, visibleTeamIds } from "@/core/teams/team-access";
import { apiRoute, warnDatabaseUnavailable } from "../_lib/api-route";
import { ConsoleChangeFeed, getConsoleChangeFeed } from "@/core/console/console-change-feed";
import { changeEventStream } from "@/core/console/change-event-stream";
import { getEnv, requireDatabaseUrl } from "@/core/env";
import { authenticate, SESSION_COOKIE, sha256Hex } from "@/core/auth/authenticate";
import { takeChangeStreamSlot } from "@/core/console/change-stream-slots";
import { getPool } from "@/core/db/pool";
import { credentialsExpireInMs } from "@/core/auth/credentials-expiry";

export const dynamic = "force-dynamic";

const feed = () =>
  getConsoleChangeFeed(
    () =>
      new ConsoleChangeFeed({
        connectionString: requireDatabaseUrl(),
        deadAfterMs: getEnv().VIGIL_WORKER_DEAD_AFTER_MS,
        onDatabaseLost: (err) => warnDatabaseUnavailable(err, { path: "/api/changes" }),
      }),
  );

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "schedules:read",
    summary: "Server-sent events naming which topics (runs, alerts, workers, health) changed.",
    answer: z.string().describe("text/event-stream of `event: <topic>` messages"),
    answerMedia: "text/event-stream",
  },
  async ({ req, actor }) => {
    const auth = req.headers.get("authorization");
    const credentials = {
      bearerToken: auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null,
      sessionToken: req.cookies.get(SESSION_COOKIE)?.value,
    };
    // The same credentials as they were checked for this request: still valid, and still the same role and team roles (a changed role
    // closes the stream too, so the tab's next one, and what the tab shows, go by the new role).
    const stillAllowed = async () => {
      const now = await authenticate(getPool(), credentials);
      return now !== null && now.id === actor.id && now.role === actor.role && accessVariant(now) === accessVariant(actor);
    };
    const expiresInMs = () => credentialsExpireInMs(getPool(), credentials);
    // Per credential (this session, or this token): one user's other sessions have their own streams.
    const slotKey = sha256Hex(credentials.bearerToken ?? credentials.sessionToken ?? `${actor.type}:${actor.id}`);
    const release = takeChangeStreamSlot(slotKey, getEnv().VIGIL_CHANGE_STREAMS_PER_SESSION);
    let stream: ReadableStream<Uint8Array>;
    try {
      stream = changeEventStream(feed(), req.signal, { stillAllowed, expiresInMs, teams: visibleTeamIds(actor), onClose: release });
    } catch (err) {
      release();
      throw err;
    }
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform: no compression (it would hold events back until a buffer fills); X-Accel-Buffering: nor nginx.
        "cache-control": "no-store, no-transform",
        "x-accel-buffering": "no",
      },
    });
  },
);
