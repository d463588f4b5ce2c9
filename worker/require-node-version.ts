// Imported first by worker/main.ts: a worker on a Node older than package.json's `engines.node` cannot start its
// attempt threads (they load .ts files with Node's own type stripping), so it refuses to start with one line
// instead of logging a thread failure every second.
import pkg from "../package.json" with { type: "json" };

const required = Number(/(\d+)/.exec(pkg.engines.node)?.[1] ?? 0);
const running = Number(process.versions.node.split(".")[0]);

if (running < required) {
  process.stderr.write(
    `Vigil's worker needs Node ${pkg.engines.node} but this is Node ${process.versions.node} (${process.execPath}): run \`npm install\` once, then \`npm run worker\`, which uses the Node ${required} that npm install puts in node_modules.\n`,
  );
  process.exit(1);
}
