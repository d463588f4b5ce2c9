// A web stream's bytes as text, counted while they arrive: past the limit the stream is cancelled at the first chunk
// over it instead of being buffered whole. Request bodies (app/api/_lib/read-input.ts) and remote answers
// (worker/handlers/http/read-record-count.ts) are read through it.

/** The stream's text, or null (the rest cancelled) when it is longer than limit bytes. */
export async function readBoundedText(body: ReadableStream<Uint8Array>, limit: number): Promise<string | null> {
  return (await readBoundedBytes(body, limit))?.toString("utf8") ?? null;
}

/** The stream's bytes as sent (a signature is computed over them), or null when it is longer than limit bytes. */
export async function readBoundedBytes(body: ReadableStream<Uint8Array>, limit: number): Promise<Buffer | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
