// The console's HTTP server on a real socket, with a stand-in for Next.js's request handler.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_HEADER } from "../../core/http/peer-header";
import { createConsoleHttpServer, MAX_HEADER_BYTES } from "./console-http-server";

let server: http.Server;
let base = "";
const refused: string[] = [];
const handled: string[] = [];

describe("the console's HTTP server", () => {
  beforeAll(async () => {
    server = createConsoleHttpServer(
      async (req, res) => {
        handled.push(req.url ?? "");
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ peer: req.headers[PEER_HEADER] }));
      },
      () => {},
      (path) => refused.push(path),
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

  describe("answers a path with malformed percent-encoding with a 400 (JSON on the API, a page elsewhere), logged", () => {
    it.each([
      ["/api/runs/%ff", "json"],
      ["/api/runs/%ff/logs?after=1", "json"],
      ["/api/schedules/%E0%A4%A/pause", "json"],
      ["/api/schedules/%zz", "json"],
      ["/api/users/%", "json"],
      ["/runs/%ff", "html"],
      ["/schedules/%E0%A4%A", "html"],
      ["/schedules/%C3%28/edit", "html"],
    ])("%s → 400 %s", async (path, kind) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(400);
      if (kind === "json") {
        expect(res.headers.get("content-type")).toBe("application/json");
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("malformed_path");
      } else {
        expect(res.headers.get("content-type")).toMatch(/^text\/html/);
        expect(await res.text()).toContain("400");
      }
      expect(refused.at(-1)).toBe(path.split("?")[0]);
      expect(handled).not.toContain(path);
    });

    it("leaves well-formed encodings, and a malformed one in the query string, to the handler", async () => {
      for (const path of ["/api/runs/%20ok", "/schedules/caf%C3%A9", "/api/schedules?q=%ff"]) {
        expect((await fetch(`${base}${path}`)).status).toBe(200);
        expect(handled).toContain(path);
      }
    });
  });
});
