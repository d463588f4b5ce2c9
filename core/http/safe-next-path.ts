/**
 * Only same-site paths: `?next=https://evil.example` must not turn sign-in into an open redirect. Control
 * characters and backslashes are refused too: browsers drop tabs and newlines from a URL and read `\` as `/`,
 * so `/\t/evil.example` would become `//evil.example`.
 */
export function safeNextPath(next: string | string[] | null | undefined): string {
  const n = Array.isArray(next) ? next[0] : next;
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (!n || !n.startsWith("/") || n.startsWith("//") || /[\u0000-\u001f\u007f\\]/.test(n)) return "/";
  if (n.startsWith("/login") || n.startsWith("/api/")) return "/";
  return n;
}
