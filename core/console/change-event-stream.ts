// The body of GET /api/changes: server-sent events from the process's change feed (console-change-feed.ts).
//   event: hello   data: {"database":"up"}        once, when the stream opens
//   event: change  data: {"topics":["runs"]}      at most one a feed tick (a second), naming what changed
//   event: ping    data: {}                       every PING_MS, so the tab can tell a silent stream from a dead one
//   event: bye     data: {}                       before the server closes the stream after MAX_LIFETIME_MS
//   event: bye     data: {"reason":"credentials"} before it closes a stream whose credentials no longer hold
// A stream names runs, schedules, attention and alerts only when they changed in a team its caller sees (or in what
// everyone sees: a maintenance window, an alert about no schedule); a changed team role closes it (stillAllowed).
// A stream is authenticated when it opens, and again whenever the feed hears that some credentials were revoked or
// changed (a sign-out elsewhere, an account disabled, a role changed: `stillAllowed`), and when they expire
// (`expiresInMs`: a session or token reaching its expiry writes nothing, so nothing is heard): one whose credentials
// no longer hold is closed at once, and the tab's next stream (and every other request) is refused. Closing every
// stream after a few minutes stays as the backstop.
import type { ConsoleChangeFeed } from "./console-change-feed";

export const CHANGE_STREAM_PING_MS = 15_000;
export const CHANGE_STREAM_MAX_LIFETIME_MS = 5 * 60_000;

export function changeEventStream(
  feed: ConsoleChangeFeed,
  signal: AbortSignal,
  opts: {
    pingMs?: number;
    maxLifetimeMs?: number;
    /** Whether the stream's credentials still hold as it was opened with them (same role); false closes it. */
    stillAllowed?: () => Promise<boolean>;
    /** How long until the credentials expire (database clock), null if unknown: checked again then. */
    expiresInMs?: () => Promise<number | null>;
    /** The teams the stream's caller sees (visibleTeamIds; null: every team): team topics are named for these alone. */
    teams?: readonly string[] | null;
    /** Called once when the stream ends, however it ends (its slot is given back). */
    onClose?: () => void;
  } = {},
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
      let checking: Promise<void> | null = null;
      let checkAgain = false;
      const lifetimeMs = opts.maxLifetimeMs ?? CHANGE_STREAM_MAX_LIFETIME_MS;
      const openedAt = performance.now();
      let expiry: ReturnType<typeof setTimeout> | undefined;
      // At the credentials' expiry, check them again (an expiry in the past is checked at once).
      const watchExpiry = () => {
        if (!opts.expiresInMs || !open) return;
        opts
          .expiresInMs()
          .then((ms) => {
            if (ms === null || !open || ms > lifetimeMs - (performance.now() - openedAt)) return;
            clearTimeout(expiry);
            expiry = setTimeout(recheck, Math.max(0, ms) + 50);
          })
          .catch(() => {
            // The database could not say (it is down): the feed has every stream check again once it is back.
          });
      };
      const recheck = () => {
        if (!opts.stillAllowed || !open) return;
        // One check at a time per stream; a revocation heard during a check is checked once more after it.
        if (checking) {
          checkAgain = true;
          return;
        }
        checking = opts
          .stillAllowed()
          .then((allowed) => {
            if (!open) return;
            if (allowed) return watchExpiry();
            send("bye", { reason: "credentials" });
            close();
          })
          .catch(() => {
            // The database could not say (it is down): the feed asks again once it is back.
          })
          .finally(() => {
            checking = null;
            if (checkAgain) {
              checkAgain = false;
              recheck();
            }
          });
      };
      const unsubscribe = feed.subscribe((topics) => send("change", { topics }), recheck, opts.teams ?? null);
      const ping = setInterval(() => send("ping", {}), opts.pingMs ?? CHANGE_STREAM_PING_MS);
      const lifetime = setTimeout(() => {
        send("bye", {});
        close();
      }, lifetimeMs);
      cleanup = () => {
        if (!open) return;
        open = false;
        opts.onClose?.();
        unsubscribe();
        clearInterval(ping);
        clearTimeout(lifetime);
        clearTimeout(expiry);
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
      else watchExpiry();
    },
    cancel() {
      cleanup();
    },
  });
}
