// The console's HTTP server on a real socket, with a stand-in for Next.js's request handler.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_HEADER } from "../../core/http/peer-header";
import { createConsoleHttpServer, MAX_HEADER_BYTES } from "./console-http-server";

let server: http.Server;
let base = "";

describe("the console's HTTP server", () => {
  beforeAll(async () => {
    server = createConsoleHttpServer(
      async (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ peer: req.headers[PEER_HEADER] }));
      },
      () => {},
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("tells the handler the socket peer, replacing what the client claimed", async () => {
    const res = await fetch(`${base}/api/x`, { headers: { [PEER_HEADER]: "6.6.6.6", "x-forwarded-for": "6.6.6.6" } });
    expect(await res.json()).toEqual({ peer: "127.0.0.1" });
  });

  it("answers a URL over the header limit with a JSON 431", async () => {
    const res = await fetch(`${base}/api/schedules?q=${"x".repeat(MAX_HEADER_BYTES + 100)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("request_too_large");
    expect(body.error.message).toMatch(/larger than 16 KiB/);
  });
});
