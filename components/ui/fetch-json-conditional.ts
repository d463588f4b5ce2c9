// GET with the last answer's ETag: a 304 hands back the very object of the last answer, so TanStack Query sees
// nothing new and nothing re-renders; the server skipped the query behind it (app/api/_lib/conditional-json.ts).
import { fetchJson, NOT_MODIFIED } from "./fetch-json";

const MAX_ENTRIES = 64;
const last = new Map<string, { etag: string; data: unknown }>();

export async function fetchJsonConditional<T>(url: string): Promise<T> {
  const prev = last.get(url);
  let etag: string | null = null;
  const data = await fetchJson<T>(url, {
    headers: prev ? { "if-none-match": prev.etag } : {},
    onResponse: (res) => {
      etag = res.headers.get("etag");
    },
  });
  if ((data as unknown) === NOT_MODIFIED) {
    if (prev) return prev.data as T;
    throw new Error(`${url} answered 304 to a request that named no ETag`);
  }
  if (etag) {
    last.delete(url);
    last.set(url, { etag, data });
    if (last.size > MAX_ENTRIES) last.delete(last.keys().next().value!);
  }
  return data;
}
