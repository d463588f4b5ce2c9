// The HTTP server in front of Next.js's request handler. It exists for what `next start` cannot do: tell
// route handlers the socket peer (PEER_HEADER, see core/http/peer-header.ts), answer a request whose URL
// and headers exceed the size limit with JSON instead of Node's bare, empty 431, answer a path with malformed
// percent-encoding with a 400 instead of Next.js's bare 500 (malformed-path.ts), cap request bodies while they
// arrive (capped-request-body.ts), and gzip the metrics scrape in one step (gzip-in-one-step.ts).
import http from "node:http";
import type { Duplex } from "node:stream";
import { PEER_HEADER } from "../../core/http/peer-header";
import { gzipInOneStep } from "./gzip-in-one-step";
import { answerMalformedPath } from "./malformed-path";
import { withCappedBody } from "./capped-request-body";

/** Node's own default: the request line and every header together. */
export const MAX_HEADER_BYTES = 16 * 1024;

type Handle = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

function answerJson(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `cache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function createConsoleHttpServer(
  handle: Handle,
  onError: (err: unknown, url: string | undefined) => void,
  onMalformedPath: (path: string) => void = () => {},
): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    if (answerMalformedPath(req, res, onMalformedPath)) return;
    // Whatever the client sent under this name is replaced: only the socket knows the peer.
    req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
    gzipInOneStep(req, res);
    withCappedBody(req, res, (capped) =>
      handle(capped, res).catch((err: unknown) => {
        onError(err, req.url);
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: "internal", message: "Something went wrong on the server; it has been logged." } }));
        } else res.destroy();
      }),
    );
  });
  // The HTTP parser refuses a request before any handler sees it; Node would answer without a body.
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === "ECONNRESET") return void socket.destroy();
    if (err.code === "HPE_HEADER_OVERFLOW") {
      answerJson(
        socket,
        431,
        "Request Header Fields Too Large",
        "request_too_large",
        `The URL and headers of this request are larger than ${MAX_HEADER_BYTES / 1024} KiB together: shorten the query string (send long filters in a POST body) or drop large cookies.`,
      );
    } else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      answerJson(socket, 408, "Request Timeout", "request_timeout", "The request was not sent completely in time.");
    } else {
      answerJson(socket, 400, "Bad Request", "malformed_request", "This is not a well-formed HTTP request.");
    }
  });
  return server;
}
