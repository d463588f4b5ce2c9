// A local HTTP server on 127.0.0.1 standing in for an alert webhook receiver: records every request
// (monotonic arrival time, headers, raw body) and answers as the test says — a status, or never.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type ReceiverAnswer = number | "hang" | { status: number; headers?: Record<string, string>; body?: string };

export interface WebhookReceiver {
  url(path: string): string;
  received: ReceivedRequest[];
  /** Most requests held open at once (answer "hang"). */
  maxOpen(): number;
  /** TCP connections accepted so far (a refused call must not make one). */
  connections(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: (req: ReceivedRequest, nth: number) => ReceiverAnswer): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let open = 0;
  let maxOpen = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: ReceivedRequest = {
        at: performance.now(),
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(r);
      const a = answer(r, received.filter((x) => x.path === r.path).length);
      if (a === "hang") {
        // Never answer; the sender's timeout must end it.
        open++;
        maxOpen = Math.max(maxOpen, open);
        res.on("close", () => open--);
        return;
      }
      if (typeof a === "object") res.writeHead(a.status, { "content-type": "text/plain", ...a.headers }).end(a.body ?? "");
      else res.writeHead(a, { "content-type": "text/plain" }).end(a < 300 ? "ok" : "nope");
    });
  });
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    maxOpen: () => maxOpen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
