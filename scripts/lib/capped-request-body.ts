// The console's server reads every request body itself, counting the bytes as they arrive, before Next.js
// sees the request: Next.js (and its proxy's body clone) would otherwise buffer a chunked body whole before any
// route could look at its size. A body within its route's limit (core/http/body-limits.ts) is handed on as a
// fresh request carrying the bytes already read; one over it is answered 413 at once and the rest of it is read
// and dropped, not kept, so the client sees the answer instead of a reset connection.
import http from "node:http";
import { bodyLimitFor, payloadTooLargeMessage } from "../../core/http/body-limits";

/** How long the rest of a refused body is read and dropped before the connection is closed. */
const DISCARD_FOR_MS = 10_000;

function hasBody(req: http.IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

function pathnameOf(url: string | undefined): string {
  const s = url ?? "/";
  const end = s.search(/[?#]/);
  return end < 0 ? s : s.slice(0, end);
}

function refuse(req: http.IncomingMessage, res: http.ServerResponse, limit: number): void {
  const body = JSON.stringify({ error: { code: "payload_too_large", message: payloadTooLargeMessage(limit) } });
  res.writeHead(413, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    connection: "close",
  });
  // Not res.end(body) yet: Node would close the socket as soon as the answer is written, and a client still
  // sending would get a reset instead of the answer. Written now, the socket closes after the body is read.
  res.write(body);
  const timer = setTimeout(() => req.socket.destroy(), DISCARD_FOR_MS).unref();
  const finish = () => {
    clearTimeout(timer);
    res.end();
  };
  if (req.complete) return finish();
  req.removeAllListeners("data");
  req.on("end", finish).on("error", () => req.socket.destroy());
  req.on("close", () => clearTimeout(timer));
  req.resume();
}

/** A request that carries `body` (already read from `req`) as its own stream, for Next.js to read. */
function replay(req: http.IncomingMessage, body: Buffer): http.IncomingMessage {
  const copy = new http.IncomingMessage(req.socket);
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.method = req.method;
  copy.url = req.url;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.trailers = req.trailers;
  copy.rawTrailers = req.rawTrailers;
  copy.complete = true;
  if (body.length > 0) copy.push(body);
  copy.push(null);
  return copy;
}

/**
 * Calls `next` with a request whose body is within its route's limit, or answers 413 itself. A request without
 * a body is passed through untouched.
 */
export function withCappedBody(req: http.IncomingMessage, res: http.ServerResponse, next: (req: http.IncomingMessage) => void): void {
  if (!hasBody(req)) return next(req);
  const limit = bodyLimitFor(pathnameOf(req.url));
  if (Number(req.headers["content-length"] ?? 0) > limit) return refuse(req, res, limit);
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      chunks.length = 0;
      req.removeListener("end", onEnd);
      refuse(req, res, limit);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => next(replay(req, Buffer.concat(chunks, size)));
  req.on("data", onData);
  req.on("end", onEnd);
}
