// Does a request's Accept-Encoding allow gzip? (RFC 9110 §12.5.3: a coding listed with q=0 is refused; `*` stands for
// every coding not listed by name.) Used by answers that compress themselves (GET /api/metrics).

export function acceptsGzip(header: string | null | undefined): boolean {
  if (!header) return false;
  let star: boolean | null = null;
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => /^q=/i.test(p));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    const name = coding.toLowerCase();
    if (name === "gzip" || name === "x-gzip") return allowed;
    if (name === "*") star = allowed;
  }
  return star === true;
}
