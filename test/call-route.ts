// Calls a Next.js route handler in-process with a real NextRequest: the full wrapper (auth, origin,
// parsing, error mapping) runs, without starting a server.
import { NextRequest } from "next/server";

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

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
  return { status: res.status, body: !text ? null : type.includes("json") ? JSON.parse(text) : text };
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
