// How many change streams (GET /api/changes) one session or API token holds open in this console process: each
// stream holds a connection and a feed subscription, so a script opening streams in a loop is refused with 429
// beyond VIGIL_CHANGE_STREAMS_PER_SESSION instead of exhausting the process. A closed stream gives its slot back.
// Kept on globalThis so every copy of this module in the process (route bundles, development reloads) counts alike.
import { TooManyRequestsError } from "../errors";

const GLOBAL_KEY = Symbol.for("vigil.changeStreamSlots");

function openStreams(): Map<string, number> {
  const g = globalThis as { [GLOBAL_KEY]?: Map<string, number> };
  return (g[GLOBAL_KEY] ??= new Map());
}

/**
 * Takes a slot for `key` (a hash of the session or token, never the credential itself) or throws
 * TooManyRequestsError when `max` are taken. Returns the release, which may be called more than once.
 */
export function takeChangeStreamSlot(key: string, max: number): () => void {
  const open = openStreams();
  const now = open.get(key) ?? 0;
  if (now >= max) {
    throw new TooManyRequestsError(
      `This session already has ${max} change streams open, the most one may hold: close a console tab, or wait for one to end.`,
      5,
    );
  }
  open.set(key, now + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (open.get(key) ?? 1) - 1;
    if (left <= 0) open.delete(key);
    else open.set(key, left);
  };
}
