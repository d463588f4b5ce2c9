// A thread entry for thread-pool.test.ts: the first thread started with a fresh marker file becomes ready, every
// later one throws at import, as a thread whose handler module cannot load does.
import fs from "node:fs";
import { parentPort } from "node:worker_threads";

const marker = process.env.VIGIL_TEST_THREAD_MARKER;
if (!marker) throw new Error("VIGIL_TEST_THREAD_MARKER is not set");
if (fs.existsSync(marker)) throw new Error("this thread cannot start (test thread: marker file exists)");
fs.writeFileSync(marker, "started once");
parentPort!.postMessage({ type: "ready" });
// Stays alive until terminated, waiting for work as a real executor thread does. A thread that ended right after its
// "ready" could have its exit handled in the same turn as the message, before the test took it from the pool.
parentPort!.on("message", () => {});
