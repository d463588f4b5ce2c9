// The body of GET /api/changes: server-sent events from the process's change feed (console-change-feed.ts).
//   event: hello   data: {"database":"up"}        once, when the stream opens
//   event: change  data: {"topics":["runs"]}      at most one a feed tick (a second), naming what changed
//   event: ping    data: {}                       every PING_MS, so the tab can tell a silent stream from a dead one
//   event: bye     data: {}                       before the server closes the stream after MAX_LIFETIME_MS
// A stream is authenticated once, when it opens; closing it after a few minutes makes the tab open a new one, which
// is authenticated again (a session ended meanwhile stops there, like every other request).
import type { ConsoleChangeFeed } from "./console-change-feed";

export const CHANGE_STREAM_PING_MS = 15_000;
export const CHANGE_STREAM_MAX_LIFETIME_MS = 5 * 60_000;

export function changeEventStream(
  feed: ConsoleChangeFeed,
  signal: AbortSignal,
  opts: { pingMs?: number; maxLifetimeMs?: number } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (event: string, data: unknown) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          cleanup();
        }
      };
      const unsubscribe = feed.subscribe((topics) => send("change", { topics }));
      const ping = setInterval(() => send("ping", {}), opts.pingMs ?? CHANGE_STREAM_PING_MS);
      const lifetime = setTimeout(() => {
        send("bye", {});
        close();
      }, opts.maxLifetimeMs ?? CHANGE_STREAM_MAX_LIFETIME_MS);
      cleanup = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        clearInterval(ping);
        clearTimeout(lifetime);
        signal.removeEventListener("abort", close);
      };
      function close() {
        cleanup();
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      }
      signal.addEventListener("abort", close);
      // retry: how long the browser waits before it reconnects a dropped stream by itself.
      controller.enqueue(encoder.encode("retry: 2000\n\n"));
      send("hello", { database: feed.database });
      if (signal.aborted) close();
    },
    cancel() {
      cleanup();
    },
  });
}
