// Deterministic pg-boss job ids: the same (run, attempt, wake) always maps to the same UUID, and
// pg-boss inserts jobs with ON CONFLICT DO NOTHING, so a second enqueue of it is a no-op.
import crypto from "node:crypto";

export function jobIdFor(runId: string, attempt: number, wake = 0): string {
  const h = crypto.createHash("sha256").update(`vigil:${runId}:${attempt}:${wake}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x40; // version 4 layout
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
