// Two hashes that differ are printed so that the difference shows: cut both at the same short prefix, hashes that
// differ only further on (a rewritten row whose hash shares its first characters with the published one) would look
// equal. Each is shown up to a few characters past the first one that differs, with that position named.

const SHOWN_PAST_DIFFERENCE = 8;
const SHORTEST = 12;

/** The index of the first character where a and b differ, or -1 when they are equal. */
export function firstDifference(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** `a` and `b` cut where the difference has shown, and where it starts (1-based, for people). */
export function showHashDifference(a: string, b: string): { a: string; b: string; position: number } {
  const at = firstDifference(a, b);
  const length = at < 0 ? SHORTEST : Math.max(SHORTEST, at + SHOWN_PAST_DIFFERENCE);
  const cut = (h: string) => (h.length > length ? `${h.slice(0, length)}…` : h);
  return { a: cut(a), b: cut(b), position: at + 1 };
}
