// A request path whose percent-encoding does not decode (`/api/runs/%ff`, `/schedules/%E0%A4%A`) can name no
// route: every dynamic segment is decoded before a handler sees it, and Next.js fails such a path with a bare
// 500. The console's server answers it first, as the client's mistake it is: 400 JSON on the API, a 400 page for
// a browser. Only the path is checked: a query string is decoded leniently by the routes themselves.
import type http from "node:http";

/** The path part of a request target, when its percent-encoding is malformed; null when it decodes. */
export function malformedPathOf(url: string | undefined): string | null {
  const path = (url ?? "/").split(/[?#]/, 1)[0]!;
  try {
    decodeURIComponent(path);
    return null;
  } catch {
    return path;
  }
}

const MESSAGE = "This address is not valid: it contains a malformed percent-encoding (a % not followed by a valid UTF-8 byte sequence).";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bad address · Vigil</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937}h1{font-size:1.25rem}</style>
</head><body><main><h1>400 — Bad address</h1><p>${MESSAGE}</p><p><a href="/">Back to the console</a></p></main></body></html>
`;

/** Answers the request when its path is malformed (and says so); false leaves it to the handler. */
export function answerMalformedPath(req: http.IncomingMessage, res: http.ServerResponse, onRefused: (path: string) => void): boolean {
  const path = malformedPathOf(req.url);
  if (path === null) return false;
  onRefused(path.slice(0, 512));
  const api = path === "/api" || path.startsWith("/api/");
  const body = api ? JSON.stringify({ error: { code: "malformed_path", message: MESSAGE } }) : PAGE;
  res.writeHead(400, {
    "content-type": api ? "application/json" : "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
