// Next.js does not hand route handlers the socket: the only trace of the peer it leaves is
// X-Forwarded-For, which it fills from the socket only when the client did not send one. So the
// console's own server (scripts/console-server.ts) writes the socket peer into PEER_HEADER on every
// request, replacing whatever a client put there, and marks the process so routes believe it. Under
// a plain `next start` the mark is absent and the header means nothing.
export const PEER_HEADER = "x-vigil-peer";

const MARK = Symbol.for("vigil.console-server.writes-peer-header");

export function markPeerHeaderWritten(on = true): void {
  (globalThis as Record<symbol, unknown>)[MARK] = on;
}

export function isPeerHeaderWritten(): boolean {
  return (globalThis as Record<symbol, unknown>)[MARK] === true;
}
