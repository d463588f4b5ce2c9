import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressFetch, MAX_REDIRECTS } from "./egress-fetch";
import { parseEgressAllow } from "./egress-policy";
import { sendWebhook } from "../../alerts/webhook/send-webhook";

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// Two local servers: 127.0.0.2 plays an allowed outside service, 127.0.0.1 the internal one.
function serve(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      answer(req, res);
    });
  });
  server.on("connection", () => connections++);
  return new Promise<{ url: string; seen: Seen[]; connections: () => number; close: () => Promise<void> }>((resolve) =>
    server.listen(0, host, () =>
      resolve({
        url: `http://${host}:${(server.address() as AddressInfo).port}`,
        seen,
        connections: () => connections,
        close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
      }),
    ),
  );
}

let outside: Awaited<ReturnType<typeof serve>>;
let inside: Awaited<ReturnType<typeof serve>>;
const outsideOnly = parseEgressAllow("127.0.0.2");
const both = parseEgressAllow("127.0.0.2,127.0.0.1");

beforeAll(async () => {
  inside = await serve("127.0.0.1", (_req, res) => res.end("inside"));
  outside = await serve("127.0.0.2", (req, res) => {
    const m = /^\/redirect\/(\d+)\?to=(.*)$/.exec(req.url ?? "");
    if (m) return res.writeHead(Number(m[1]), { location: decodeURIComponent(m[2]!) }).end();
    if (req.url === "/loop") return res.writeHead(302, { location: "/loop" }).end();
    res.writeHead(200, { "content-type": "text/plain", "x-answer": "yes" }).end(`outside ${req.method}`);
  });
});
afterAll(async () => {
  await inside?.close();
  await outside?.close();
});

const redirect = (status: number, to: string) => `${outside.url}/redirect/${status}?to=${encodeURIComponent(to)}`;

describe("egressFetch", () => {
  it("answers a standard Response from an allowed address", async () => {
    const res = await egressFetch(`${outside.url}/hello`, { policy: outsideOnly });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-answer")).toBe("yes");
    expect(await res.text()).toBe("outside GET");
  });

  it("refuses a redirect into a refused address at that hop, without connecting to it", async () => {
    const before = inside.connections();
    await expect(egressFetch(redirect(302, `${inside.url}/x`), { policy: outsideOnly })).rejects.toThrow(
      /^egress refused: 127\.0\.0\.1 is a loopback address/,
    );
    expect(inside.connections()).toBe(before);
  });

  it("follows redirects like fetch: 303 turns a POST into a GET without body, 307 keeps both", async () => {
    const headers = { "content-type": "application/json" };
    const r303 = await egressFetch(redirect(303, `${inside.url}/after-303`), { method: "POST", body: "{}", headers, policy: both });
    expect(await r303.text()).toBe("inside");
    expect(inside.seen.at(-1)).toMatchObject({ method: "GET", path: "/after-303", body: "" });
    await egressFetch(redirect(307, `${inside.url}/after-307`), { method: "POST", body: '{"a":1}', headers, policy: both });
    expect(inside.seen.at(-1)).toMatchObject({ method: "POST", path: "/after-307", body: '{"a":1}' });
  });

  it("does not hand credentials to another origin on a redirect", async () => {
    await egressFetch(redirect(302, `${inside.url}/creds`), { headers: { Authorization: "Bearer t", "X-Other": "kept" }, policy: both });
    const seen = inside.seen.at(-1)!;
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["x-other"]).toBe("kept");
  });

  it(`stops after ${MAX_REDIRECTS} redirects, and answers the 3xx itself with redirect: "manual"`, async () => {
    await expect(egressFetch(`${outside.url}/loop`, { policy: outsideOnly })).rejects.toThrow(/more than 10 redirects/);
    const manual = await egressFetch(`${outside.url}/loop`, { policy: outsideOnly, redirect: "manual" });
    expect(manual.status).toBe(302);
  });
});

describe("sendWebhook (alert and audit anchor webhooks)", () => {
  it("records a refused address as the attempt's error and sends nothing; delivers when the address is allowed", async () => {
    const before = inside.connections();
    const refused = await sendWebhook(`${inside.url}/hook`, "{}", {}, 2000, parseEgressAllow(""));
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toMatch(/^egress refused: 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\).*VIGIL_EGRESS_ALLOW/);
    expect(inside.connections()).toBe(before);
    expect(await sendWebhook(`${inside.url}/hook`, "{}", {}, 2000, both)).toMatchObject({ ok: true, status: 200 });
    expect(inside.seen.at(-1)).toMatchObject({ method: "POST", path: "/hook", body: "{}" });
  });

  it("treats a redirect as a failed attempt and does not follow it", async () => {
    const before = inside.seen.length;
    expect(await sendWebhook(redirect(302, `${inside.url}/hook`), "{}", {}, 2000, both)).toMatchObject({ ok: false, status: 302 });
    expect(inside.seen).toHaveLength(before);
  });
});
