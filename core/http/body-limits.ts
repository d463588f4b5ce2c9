// How large a request body may be, by route: the one table both the console's HTTP server (which counts
// the bytes while they arrive, before Next.js buffers anything) and the API routes' body reader use.
// A body over its limit answers 413 with the JSON error shape, whether it declared its length or was
// sent chunked, and whoever sent it (the count runs before authentication).

/** Every route that takes a body and is not listed below. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

/** Routes whose limit differs from the default (first match wins). */
export const ROUTE_BODY_LIMITS: readonly { path: RegExp; bytes: number; why: string }[] = [
  { path: /^\/api\/schedules\/apply\/?$/, bytes: 2 * 1024 * 1024, why: "a schedules-as-code document holds every schedule" },
  { path: /^\/api\/hooks\//, bytes: 64 * 1024, why: "a trigger URL's delivery is an event, read by anyone who knows the address" },
  {
    path: /^\/api\/calendars(\/[^/]+)?\/?$/,
    bytes: 2 * 1024 * 1024,
    why: "a calendar imported from an .ics file holds thousands of ranges",
  },
];

export function bodyLimitFor(pathname: string): number {
  return ROUTE_BODY_LIMITS.find((r) => r.path.test(pathname))?.bytes ?? DEFAULT_BODY_LIMIT_BYTES;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n / 1024} KiB`;
}

export function payloadTooLargeMessage(limitBytes: number): string {
  return `The request body is larger than ${formatBytes(limitBytes)}, the limit for this route.`;
}
