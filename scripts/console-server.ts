// The console: Next.js behind Vigil's own HTTP server (scripts/lib/console-http-server.ts), so route
// handlers learn the socket peer and oversized requests get a JSON answer.
//   node --import tsx scripts/console-server.ts [--dev] -p <port>
import { getEnv } from "../core/env";
import { markPeerHeaderWritten } from "../core/http/peer-header";
import { getLogger } from "../core/log";
import { getConsoleBoss, stopConsoleBoss } from "../core/queue/console-boss";
import { createConsoleHttpServer } from "./lib/console-http-server";

const dev = process.argv.includes("--dev");
const portArg = process.argv.indexOf("-p");
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : getEnv().PORT;

async function main(): Promise<void> {
  // Before Next.js loads a route: from now on PEER_HEADER in this process is the server's word.
  markPeerHeaderWritten();
  // What `next start` / `next dev` set before loading Next.js.
  (process.env as Record<string, string>).NODE_ENV = dev ? "development" : "production";
  const { default: next } = await import("next");
  const app = next({ dev, dir: process.cwd(), hostname: "localhost", port });
  await app.prepare();
  const server = createConsoleHttpServer(
    app.getRequestHandler(),
    (err, url) => getLogger().error({ err, url }, "console request failed"),
    (path) => getLogger().warn({ path }, "refused a request path with malformed percent-encoding (400)"),
  );
  if (dev) {
    const upgrade = app.getUpgradeHandler();
    server.on("upgrade", (req, socket, head) => void upgrade(req, socket, head).catch(() => socket.destroy()));
  }
  server.listen(port, () => process.stdout.write(`console ready on http://localhost:${port}\n`));
  // Warm the pg-boss client the trigger, re-run and bulk routes send jobs with (core/queue/console-boss.ts): started
  // lazily, it made an operator's first trigger wait for pg-boss to start. A failure here (the database not up yet)
  // only leaves it to the first use, as before.
  void Promise.resolve()
    .then(getConsoleBoss)
    .catch((err) => getLogger().warn({ err }, "pg-boss client not started yet; the first trigger starts it"));
  const stop = () => {
    server.close(() => void Promise.allSettled([app.close(), stopConsoleBoss()]).finally(() => process.exit(0)));
    server.closeIdleConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((err) => {
  process.stderr.write(`console failed to start: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
