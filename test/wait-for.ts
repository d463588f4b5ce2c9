// Polls a condition until it holds or a deadline passes; the failure names what was awaited.
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + (opts.timeoutMs ?? 15000);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as T;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) {
      throw new Error(
        `Timed out after ${opts.timeoutMs ?? 15000} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
