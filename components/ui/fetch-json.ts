// The console's one way to call the JSON API: errors come back as ApiError with the server's code,
// message and per-field messages, so forms can show them where they belong.
/** What fetchJson returns for a 304 (a conditional GET, fetch-json-conditional.ts): "the answer you have". */
export const NOT_MODIFIED = Symbol("not modified");

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export async function fetchJson<T>(url: string, init?: RequestInit & { json?: unknown; onResponse?: (res: Response) => void }): Promise<T> {
  const { json, onResponse, ...rest } = init ?? {};
  const res = await fetch(url, {
    ...rest,
    headers: { ...(json !== undefined ? { "content-type": "application/json" } : {}), ...(rest.headers ?? {}) },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
    cache: "no-store",
  });
  onResponse?.(res);
  // A conditional GET's "unchanged" (fetch-json-conditional.ts hands back its last answer).
  if (res.status === 304) return NOT_MODIFIED as T;
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e = data?.error ?? {};
    // A lapsed session sends the browser to sign in — except from the sign-in page itself, where the
    // header's polling would otherwise redirect it to itself in a loop.
    if (
      res.status === 401 &&
      typeof window !== "undefined" &&
      !url.includes("/api/auth/") &&
      !window.location.pathname.startsWith("/login")
    ) {
      window.location.href = `/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
    }
    throw new ApiError(res.status, e.code ?? "error", e.message ?? `Request failed (${res.status})`, e.fields);
  }
  return data as T;
}
