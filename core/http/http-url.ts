// What Vigil accepts as a URL it will call (an http.request target, a schedule's alert webhook): an absolute http://
// or https:// URL of at most 2048 characters. One rule, so a URL a schedule may alert to is one a job may call.
import { z } from "zod";

export const MAX_HTTP_URL_LENGTH = 2048;

/** Accepted by `new URL` with an http: or https: scheme. */
export function isHttpUrl(u: string): boolean {
  try {
    const p = new URL(u).protocol;
    return p === "http:" || p === "https:";
  } catch {
    return false;
  }
}

/** The field's schema; `name` starts each message ("url must be …"), `example` shows a good value. */
export function httpUrlSchema(name: string, example: string) {
  return z
    .string({ error: `${name} must be a string such as ${example}` })
    .max(MAX_HTTP_URL_LENGTH, { error: `${name} must be at most ${MAX_HTTP_URL_LENGTH} characters` })
    .refine(isHttpUrl, { error: `${name} must be an absolute http:// or https:// URL` });
}
