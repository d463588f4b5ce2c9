// How much work a remote service reports for one call, so hollow detection works for remote jobs: the
// X-Vigil-Records response header, else a top-level numeric `records` of a JSON body (only the first
// 1 MiB is read). A value that is there but not a whole number ≥ 0 fails the attempt; none at all
// leaves the count to the caller (http.request then counts the call as 1 record).
import { HTTP_RECORDS_BODY_LIMIT, HTTP_RECORDS_HEADER } from "../../../core/handlers/builtin-handler-specs.ts";
import { readBoundedText } from "../../../core/http/read-bounded-text.ts";

export interface RecordCount {
  records: number | null;
  source: "header" | "body" | null;
  /** Why a body that might have held a count was not read. */
  note?: string;
}

export async function readRecordCount(res: Response): Promise<RecordCount> {
  const header = res.headers.get(HTTP_RECORDS_HEADER);
  if (header !== null) {
    await res.body?.cancel().catch(() => undefined);
    if (!/^\d+$/.test(header.trim()) || !Number.isSafeInteger(Number(header.trim()))) {
      throw new Error(`the response's X-Vigil-Records header must be a whole number ≥ 0, got "${header.slice(0, 40)}"`);
    }
    return { records: Number(header.trim()), source: "header" };
  }
  if (!/\bjson\b/i.test(res.headers.get("content-type") ?? "") || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return { records: null, source: null };
  }
  const text = await readBoundedText(res.body, HTTP_RECORDS_BODY_LIMIT);
  if (text === null)
    return {
      records: null,
      source: null,
      note: `JSON response larger than ${HTTP_RECORDS_BODY_LIMIT} bytes: its records field was not read`,
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { records: null, source: null, note: "response says JSON but does not parse: no record count read from it" };
  }
  const value = json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>).records : undefined;
  if (typeof value !== "number") return { records: null, source: null };
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`the response's "records" must be a whole number ≥ 0, got ${value}`);
  return { records: value, source: "body" };
}
