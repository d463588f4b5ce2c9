// The metrics scrape gzipped by the console's own HTTP server in one step, on a real socket, behind a stand-in for
// Next.js that writes its answer as Next does (headers set, flushHeaders, chunks, end) through Next's own compression
// middleware.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsoleHttpServer } from "./console-http-server";
import { acceptsGzip } from "./gzip-in-one-step";

const compression = createRequire(import.meta.url)("next/dist/compiled/compression") as () => (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  next: () => void,
) => void;
const BODY = Array.from({ length: 2000 }, (_, i) => `vigil_runs_missed_total{schedule="s-${i}"} ${i % 7}`).join("\n") + "\n";

let server: http.Server;
let port = 0;
const seen: (string | undefined)[] = [];

function get(path: string, encoding: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path, headers: { "accept-encoding": encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (b: Buffer) => chunks.push(b));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

describe("gzip in one step (GET /api/metrics)", () => {
  beforeAll(async () => {
    const middleware = compression();
    server = createConsoleHttpServer(
      async (req, res) => {
        seen.push(req.headers["accept-encoding"]);
        middleware(req, res, () => {});
        res.statusCode = 200;
        res.setHeader("content-type", "text/plain; version=0.0.4");
        res.flushHeaders();
        for (let i = 0; i < BODY.length; i += 16_384) res.write(Buffer.from(BODY.slice(i, i + 16_384)));
        res.end();
      },
      () => {},
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("gzips the scrape itself, once, when the scraper accepts gzip (as Prometheus does); Next.js is told identity", async () => {
    seen.length = 0;
    const res = await get("/api/metrics", "gzip");
    expect(seen).toEqual(["identity"]);
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["vary"]).toMatch(/accept-encoding/i);
    expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4");
    expect(gunzipSync(res.body).toString("utf8")).toBe(BODY);
  });

  it("sends the scrape plain when gzip is not accepted", async () => {
    for (const encoding of ["identity", "gzip;q=0", "br"]) {
      const res = await get("/api/metrics?x=1", encoding);
      expect(res.headers["content-encoding"]).toBeUndefined();
      expect(res.body.toString("utf8")).toBe(BODY);
    }
  });

  it("leaves every other path to Next.js's middleware", async () => {
    seen.length = 0;
    const res = await get("/api/timeline", "gzip");
    expect(seen).toEqual(["gzip"]);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(res.body).toString("utf8")).toBe(BODY);
  });

  it("reads Accept-Encoding as RFC 9110 says", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("br;q=1.0, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    for (const h of [undefined, "", "identity", "deflate, br", "gzip;q=0", "*, gzip;q=0", "*;q=0"]) expect(acceptsGzip(h)).toBe(false);
  });
});
