"use client";
// The tab's one EventSource on GET /api/changes (core/console/change-event-stream.ts): each "change" makes the
// queries of its topics stale (fetched again at once if on screen, refetch-topics.ts), and while the stream is live
// those queries poll only as a slow safety net (live-updates.ts). When the stream fails, they poll every 2 s again
// until it is back.
// A hidden tab closes its stream (and, like before, does not poll); shown again, it refetches and reopens it.
import { useEffect } from "react";
import { usePathname } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { CHANGE_TOPICS, type ChangeTopic } from "@/core/console/change-topics";
import { isChangeStreamLive, setChangeStreamLive } from "./live-updates";
import { refetchTopics } from "./refetch-topics";

/** A stream silent this long (it pings every 15 s) is taken for dead. */
const SILENT_MS = 45_000;
const RETRY_MAX_MS = 30_000;

export function ChangeStream() {
  const queryClient = useQueryClient();
  // No session to listen with on the sign-in page.
  const signingIn = usePathname().startsWith("/login");

  useEffect(() => {
    if (signingIn || typeof EventSource === "undefined") return;
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let silentTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    /** Errors since the current stream last said hello. */
    let errors = 0;
    let disposed = false;

    // Polling takes over: the queries' next interval would be the safety net's, so they refetch now (a first fetch in
    // flight is let finish: the polls come after it).
    const lost = () => {
      if (!isChangeStreamLive()) return;
      setChangeStreamLive(false);
      void refetchTopics(queryClient, CHANGE_TOPICS, { restartFirstFetches: false });
    };
    const close = () => {
      source?.close();
      source = null;
      clearTimeout(silentTimer);
    };
    const reopenLater = () => {
      failures++;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(open, Math.min(RETRY_MAX_MS, 2000 * 2 ** (failures - 1)));
    };
    const heard = () => {
      clearTimeout(silentTimer);
      silentTimer = setTimeout(() => {
        close();
        lost();
        reopenLater();
      }, SILENT_MS);
    };
    function open() {
      clearTimeout(retryTimer);
      if (disposed || document.hidden || source) return;
      const es = new EventSource("/api/changes");
      source = es;
      heard();
      es.addEventListener("hello", () => {
        failures = 0;
        errors = 0;
        heard();
        setChangeStreamLive(true);
        // What changed between this page's fetches and the stream opening was told to nobody: catch up once.
        void refetchTopics(queryClient, CHANGE_TOPICS, { restartFirstFetches: false });
      });
      es.addEventListener("change", (e) => {
        heard();
        const topics = (JSON.parse((e as MessageEvent<string>).data) as { topics?: ChangeTopic[] }).topics ?? [];
        void refetchTopics(
          queryClient,
          topics.filter((t) => CHANGE_TOPICS.includes(t)),
        );
      });
      es.addEventListener("ping", heard);
      // The server ends a stream after a few minutes (so it is authenticated again): open the next one at once.
      es.addEventListener("bye", () => {
        close();
        open();
      });
      es.onerror = () => {
        if (source !== es) return;
        lost();
        // A dropped connection is retried by the browser itself (readyState CONNECTING), every few seconds for
        // ever; a refused one (401, 503 while the database is down) is not. Either way, once a retry has failed
        // too, retrying is left to this tab, backing off.
        if (es.readyState === EventSource.CLOSED || ++errors >= 2) {
          close();
          reopenLater();
        }
      };
    }
    const onVisibility = () => {
      if (document.hidden) {
        close();
        setChangeStreamLive(false);
      } else open();
    };
    document.addEventListener("visibilitychange", onVisibility);
    open();
    return () => {
      disposed = true;
      document.removeEventListener("visibilitychange", onVisibility);
      clearTimeout(retryTimer);
      close();
      setChangeStreamLive(false);
    };
  }, [signingIn, queryClient]);

  return null;
}
