// Request bodies are capped while they arrive, by the real console process: a 50 MB body sent chunked (no
// Content-Length) or declaring its length answers 413 with the JSON error shape, to anonymous and signed-in callers
// alike, and the console's memory does not grow with it. A body within its route's limit still reaches the route.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "./db";
import { createTestToken } from "./auth";
import { residentBytes, startConsole, type TestConsole } from "./console-process";

const db = useTestDatabase("body_limit");
const MB = 1024 * 1024;
let consoleProcess: TestConsole;
let operatorToken = "";

interface Answer {
  status: number;
  body: { error?: { code: string; message: string } };
  /** The console's largest resident memory seen while the request was sent, in bytes. */
  peakRss: number;
}

/** Sends `total` bytes of JSON-ish filler in 64 KiB chunks, respecting back-pressure, whatever the server answers. */
function send(path: string, total: number, opts: { chunked: boolean; headers?: Record<string, string> }): Promise<Answer> {
  const url = new URL(path, consoleProcess.baseUrl);
  let peakRss = residentBytes(consoleProcess.pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentBytes(consoleProcess.pid))), 20);
  const chunk = Buffer.alloc(64 * 1024, "x");
  return new Promise<Answer>((resolve, reject) => {
    let status = 0;
    let text = "";
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      if (err && status === 0) return ((done = true), clearInterval(sampler), reject(err));
      if (status === 0) return;
      done = true;
      clearInterval(sampler);
      resolve({ status, body: text ? JSON.parse(text) : {}, peakRss });
    };
    const req = http.request(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: consoleProcess.baseUrl,
        ...(opts.chunked ? {} : { "content-length": String(total) }),
        ...opts.headers,
      },
    });
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => finish());
    });
    req.on("error", (err) => finish(err));
    let sent = 0;
    const write = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", write);
      }
      req.end();
    };
    write();
  });
}

describe("request bodies capped while they arrive (the real console)", () => {
  beforeAll(async () => {
    operatorToken = await createTestToken(db.url, "operator");
    consoleProcess = await startConsole(db.url);
    // Load the code paths once before memory is measured.
    await send("/api/auth/login", 1 * MB, { chunked: true });
  }, 120_000);
  afterAll(async () => consoleProcess?.stop());

  const cases = [
    { who: "anonymous", path: "/api/auth/login", chunked: true },
    { who: "anonymous", path: "/api/auth/login", chunked: false },
    { who: "an operator", path: "/api/schedules", chunked: true },
    { who: "an operator", path: "/api/schedules/apply", chunked: true },
  ] as const;
  for (const c of cases) {
    it(`a 50 MB body ${c.chunked ? "sent chunked" : "with its Content-Length"} from ${c.who} to POST ${c.path} answers 413 and the console grows < 10 MB`, async () => {
      const before = residentBytes(consoleProcess.pid);
      const headers: Record<string, string> = c.who === "anonymous" ? {} : { authorization: `Bearer ${operatorToken}` };
      const res = await send(c.path, 50 * MB, { chunked: c.chunked, headers });
      expect(res.status).toBe(413);
      expect(res.body.error?.code).toBe("payload_too_large");
      expect(res.body.error?.message).toMatch(/larger than/);
      expect(res.peakRss - before).toBeLessThan(10 * MB);
    }, 60_000);
  }

  it("a chunked body within the limit still reaches the route (a wrong password answers 401)", async () => {
    const res = await fetch(new URL("/api/auth/login", consoleProcess.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: consoleProcess.baseUrl },
      // A stream body is sent chunked.
      body: new Blob([JSON.stringify({ email: "nobody@body-limit.test", password: "wrong-password-123" })]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBeTruthy();
  }, 120_000);

  it("the schedules-as-code apply route takes a body over the default limit (its own limit is larger)", async () => {
    const res = await fetch(new URL("/api/schedules/apply", consoleProcess.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: consoleProcess.baseUrl, authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify({ document: { schedules: {} }, dryRun: true, source: "x".repeat(400 * 1024) }),
    });
    expect(res.status).not.toBe(413);
  }, 120_000);
});
