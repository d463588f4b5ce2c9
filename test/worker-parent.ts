// A short-lived parent process for worker-lifecycle.db.test.ts: starts one worker the way tests, benches and
// `npm start` do, prints the worker's pid, then waits to be killed.
import { startWorker } from "./worker-process";

const url = process.argv[2];
if (!url) throw new Error("usage: worker-parent.ts <database url>");
const w = startWorker(url, { VIGIL_HEARTBEAT_MS: "200" });
process.stdout.write(`worker pid ${w.pid}\n`);
setInterval(() => {}, 60_000);
