// A typed client of the console's API, driven by the operations generated from the contract
// (operations.gen.ts, `npm run generate:api`): the operation names the method, path and types, so a
// caller cannot send a body a route does not take or read an answer field the contract does not promise.
import { OPERATIONS, type Operations } from "./operations.gen";

export type OperationId = keyof Operations;
type Input<K extends OperationId> = (Operations[K]["params"] extends never ? { params?: undefined } : { params: Operations[K]["params"] }) &
  (Operations[K]["query"] extends never ? { query?: undefined } : { query?: Operations[K]["query"] }) &
  (Operations[K]["body"] extends never ? { body?: undefined } : { body: Operations[K]["body"] }) & { headers?: Record<string, string> };

/** The console answered with an error ({error: {code, message, fields?}}), or something that is not the API. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The console could not be reached at all (refused, unknown host, timed out). */
export class ConsoleUnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the console at ${url}: ${reason}`);
  }
}

export interface ApiClientOptions {
  /** The console's base URL, e.g. http://localhost:3000 */
  url: string;
  token: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The URL path of an operation with its path parameters filled in and its query appended. */
export function operationPath(path: string, params: Record<string, string> = {}, query: Record<string, unknown> = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(v);
  });
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) q.append(k, String(item));
  }
  const qs = q.toString();
  return qs ? `${filled}?${qs}` : filled;
}

export function createApiClient(opts: ApiClientOptions) {
  const base = opts.url.replace(/\/$/, "");
  const doFetch = opts.fetch ?? fetch;

  async function send(method: string, pathAndQuery: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const url = `${base}${pathAndQuery}`;
    try {
      return await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${opts.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ConsoleUnreachableError(base, cause?.code ?? cause?.message ?? (err as Error).message);
    }
  }

  async function refusal(res: Response): Promise<ApiError> {
    const text = await res.text();
    try {
      const e = (JSON.parse(text) as { error?: { code?: string; message?: string; fields?: Record<string, string> } }).error;
      if (e?.code) return new ApiError(res.status, e.code, e.message ?? e.code, e.fields);
    } catch {
      // Not the API's JSON (a proxy's page): said as it came, below.
    }
    return new ApiError(res.status, "not_api", `HTTP ${res.status}: ${text.slice(0, 200)}`);
  }

  return {
    baseUrl: base,
    /** Calls one operation and returns its answer (JSON parsed, or the text of a non-JSON answer). */
    async call<K extends OperationId>(id: K, input: Input<K> = {} as Input<K>): Promise<Operations[K]["answer"]> {
      const op = OPERATIONS[id];
      const path = operationPath(op.path, input.params as Record<string, string>, input.query as Record<string, unknown>);
      const res = await send(op.method, path, input.body, input.headers);
      if (!res.ok) throw await refusal(res);
      return (op.media === "application/json" ? await res.json() : await res.text()) as Operations[K]["answer"];
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
