// The ready-to-run example shown with a new or rotated secret: shell with curl and openssl, signing the exact bytes
// it sends (docs/how-to/trigger-urls.md explains the recipe).

/** Single-quoted for a POSIX shell. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function triggerUrlCurlExample(opts: { url: string; secret: string; authMode: "hmac" | "bearer"; body?: string }): string {
  const body = opts.body ?? "{}";
  if (opts.authMode === "bearer") {
    return [
      `curl -sS -X POST ${sq(opts.url)} \\`,
      `  -H ${sq(`Authorization: Bearer ${opts.secret}`)} \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -H "Idempotency-Key: my-event-$(date +%s)" \\`,
      `  --data-binary ${sq(body)}`,
    ].join("\n");
  }
  return [
    `SECRET=${sq(opts.secret)}`,
    `BODY=${sq(body)}`,
    `TS=$(date +%s)`,
    `SIG=$(printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.*= //')`,
    `curl -sS -X POST ${sq(opts.url)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "Vigil-Timestamp: $TS" \\`,
    `  -H "Vigil-Signature: v1=$SIG" \\`,
    `  -H "Vigil-Delivery-Id: my-event-$TS" \\`,
    `  --data-binary "$BODY"`,
  ].join("\n");
}
