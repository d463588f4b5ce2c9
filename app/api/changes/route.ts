// GET /api/changes → text/event-stream: which topics (runs, alerts, workers, health) changed, at most once a second
// each, so an open console reloads what changed instead of polling everything every 2 s. One database connection per
// console process feeds every tab (core/console/console-change-feed.ts); the events are described in
// core/console/change-event-stream.ts. Viewers may listen: it says only that something changed, never what.
import { apiRoute, warnDatabaseUnavailable } from "../_lib/api-route";
import { ConsoleChangeFeed, getConsoleChangeFeed } from "@/core/console/console-change-feed";
import { changeEventStream } from "@/core/console/change-event-stream";
import { getEnv, requireDatabaseUrl } from "@/core/env";
import { authenticate, SESSION_COOKIE } from "@/core/auth/authenticate";
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

export const GET = apiRoute({ access: "viewer" }, async ({ req, actor }) => {
  const auth = req.headers.get("authorization");
  const credentials = {
    bearerToken: auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : null,
    sessionToken: req.cookies.get(SESSION_COOKIE)?.value,
  };
  // The same credentials as they were checked for this request: still valid, and still the same role (a changed role
  // closes the stream too, so the tab's next one, and what the tab shows, go by the new role).
  const stillAllowed = async () => {
    const now = await authenticate(getPool(), credentials);
    return now !== null && now.id === actor.id && now.role === actor.role;
  };
  const expiresInMs = () => credentialsExpireInMs(getPool(), credentials);
  return new Response(changeEventStream(feed(), req.signal, { stillAllowed, expiresInMs }), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: no compression (it would hold events back until a buffer fills); X-Accel-Buffering: nor nginx.
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
});
