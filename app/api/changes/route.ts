// GET /api/changes → text/event-stream: which topics (runs, alerts, workers, health) changed, at most once a second
// each, so an open console reloads what changed instead of polling everything every 2 s. One database connection per
// console process feeds every tab (core/console/console-change-feed.ts); the events are described in
// core/console/change-event-stream.ts. Viewers may listen: it says only that something changed, never what.
import { apiRoute, warnDatabaseUnavailable } from "../_lib/api-route";
import { ConsoleChangeFeed, getConsoleChangeFeed } from "@/core/console/console-change-feed";
import { changeEventStream } from "@/core/console/change-event-stream";
import { getEnv, requireDatabaseUrl } from "@/core/env";

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

export const GET = apiRoute({ access: "viewer" }, async ({ req }) => {
  return new Response(changeEventStream(feed(), req.signal), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: no compression (it would hold events back until a buffer fills); X-Accel-Buffering: nor nginx.
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
});
