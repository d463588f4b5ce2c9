// Calls a Next.js route handler in-process with a real NextRequest: the full wrapper (auth, origin,
// parsing, error mapping) runs, without starting a server.
import { NextRequest } from "next/server";
import type { RouteSpec } from "@/app/api/_lib/api-route";
import { answerOutsideContract } from "@/app/api/_lib/contract/answer-outside-contract";

type Handler = ((req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>) & { spec?: RouteSpec };

/**
 * Every 2xx JSON answer a test receives is checked against the route's `answer` schema, the one the API contract
 * (GET /api/openapi.json) publishes: an answer the contract does not describe fails the test that got it.
 */
export function checkAnswerAgainstContract(handler: Handler, method: string, status: number, body: unknown): void {
  const issues = answerOutsideContract(handler.spec, status, body);
  if (!issues) return;
  throw new Error(
    `${method} answered ${status} with a body its contract answer schema refuses:\n${issues.map((i) => `  ${i}`).join("\n")}`,
  );
}

export async function callRoute(
  handler: Handler,
  opts: {
    method?: string;
    path?: string;
    token?: string;
    cookie?: string;
    body?: unknown;
    rawBody?: string;
    params?: Record<string, string>;
    headers?: Record<string, string>;
  },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies ad hoc
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = `vigil_session=${opts.cookie}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const req = new NextRequest(new URL(opts.path ?? "/api/test", "http://localhost:3000"), { method: opts.method ?? "GET", headers, body });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  const text = await readRouteBody(res);
  // Non-JSON answers (Prometheus text, CSV) come back as their text.
  const type = res.headers.get("content-type") ?? "";
  const parsed = !text ? null : type.includes("json") ? JSON.parse(text) : text;
  if (type.includes("json")) checkAnswerAgainstContract(handler, req.method, res.status, parsed);
  return { status: res.status, body: parsed };
}

/** The body; of an endless event stream (GET /api/changes) only what it sends at once, up to its first event. */
export async function readRouteBody(res: Response): Promise<string> {
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream") || !res.body) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("event:") || !text.endsWith("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}
