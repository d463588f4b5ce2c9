// Conditional GETs for the console's polled reads: the answer's ETag is the console version
// (core/console/console-version.ts) plus what else the answer depends on (the caller's role, the query), and a
// request whose If-None-Match names it gets 304 without the query behind the answer being run.
//
// While this console process's change feed is reading (a change stream is open here), the version is the feed's
// shared one instead (what runs, schedules and the header's clock showed when last named: no database read at all),
// and the answer itself is computed once per version and URL for every tab that asks (shared-answers.ts).
//
// The feed's version is every team's: it moves when any team's runs or schedules change, though the change stream
// names a topic only to the callers of the teams it changed in. So an answer filtered by the caller's teams must say
// so in `variant` (accessVariant: the role and the set of visible teams): callers with the same teams share it, and
// no other caller is handed it.
import { createHash } from "node:crypto";
import type { NextRequest } from "next/server";
import type { ClockPart } from "@/core/console/clock-boundaries";
import { findConsoleChangeFeed } from "@/core/console/console-change-feed";
import { getConsoleVersion } from "@/core/console/console-version";
import { getPool } from "@/core/db/pool";
import { jsonResponse, jsonText } from "./api-route";
import { forgetSharedAnswers, sharedAnswer } from "./shared-answers";

/** The topics an answer follows, by what of it moves with the clock (runs: the console version, schedules included). */
const SHARED_TOPICS = { attention: ["runs", "attention"], pauses: ["runs", "schedules"] } as const;

/** `opts.clock`: what of the answer moves with the clock alone (core/console/clock-boundaries.ts). */
export async function conditionalJson(
  req: NextRequest,
  variant: string,
  compute: () => Promise<unknown>,
  opts: { clock?: ClockPart } = {},
): Promise<Response> {
  const started = performance.now();
  const feed = findConsoleChangeFeed();
  const shared = feed?.sharedVersion(SHARED_TOPICS[opts.clock ?? "pauses"]);
  if (shared) return sharedJson(req, variant, shared, compute);
  // This answer will be fresher than every kept shared one, which must not be served after it (shared-answers.ts).
  if (feed) forgetSharedAnswers();
  const etag = `W/"${await getConsoleVersion(getPool(), opts.clock)}.${variant}"`;
  const versionMs = performance.now() - started;
  // no-cache (not no-store): the browser may keep it but must ask first; the console's fetcher asks itself.
  const headers: Record<string, string> = { etag, "cache-control": "private, no-cache" };
  const sent = req.headers.get("if-none-match");
  if (sent && sent.split(",").some((t) => t.trim() === etag)) {
    return new Response(null, { status: 304, headers: { ...headers, "server-timing": `version;dur=${versionMs.toFixed(1)}` } });
  }
  const appStart = performance.now();
  const data = await compute();
  const jsonStart = performance.now();
  const res = jsonResponse(data, 200, headers);
  res.headers.set(
    "server-timing",
    `version;dur=${versionMs.toFixed(1)}, app;dur=${(jsonStart - appStart).toFixed(1)}, json;dur=${(performance.now() - jsonStart).toFixed(1)}`,
  );
  return res;
}

async function sharedJson(req: NextRequest, variant: string, version: string, compute: () => Promise<unknown>): Promise<Response> {
  const started = performance.now();
  const key = `${variant}\0${req.nextUrl.pathname}${req.nextUrl.search}`;
  const answer = sharedAnswer(key, version, variant, async () => jsonText(await compute()));
  const headers: Record<string, string> = { etag: answer.etag, "cache-control": "private, no-cache" };
  const sent = req.headers.get("if-none-match");
  if (sent && sent.split(",").some((t) => t.trim() === answer.etag)) return new Response(null, { status: 304, headers });
  const text = await answer.text;
  return new Response(text, {
    status: 200,
    headers: {
      ...headers,
      "content-type": "application/json",
      "server-timing": `shared;desc=${answer.hit ? "hit" : "miss"};dur=${(performance.now() - started).toFixed(1)}`,
    },
  });
}

/**
 * For answers that are cheap to compute but polled by every open page (the health pill, the alert badge): the ETag
 * is a hash of the answer itself, so an unchanged answer travels as a 304 without a body and the console's fetcher
 * hands back the object it already has (nothing re-renders).
 */
export function hashedJson(req: NextRequest, data: unknown, headers: Record<string, string> = {}): Response {
  const res = jsonResponse(data, 200, { "cache-control": "private, no-cache", ...headers });
  const text = JSON.stringify(data);
  const etag = `W/"h${createHash("sha1").update(text).digest("base64url").slice(0, 20)}"`;
  const sent = req.headers.get("if-none-match");
  if (sent && sent.split(",").some((t) => t.trim() === etag)) {
    return new Response(null, { status: 304, headers: { etag, "cache-control": "private, no-cache", ...headers } });
  }
  res.headers.set("etag", etag);
  return res;
}
