// A worker started with a Node older than package.json's engines refuses to start with one line that says what to do.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import pkg from "../package.json" with { type: "json" };

const OLD_NODE = process.env.VIGIL_OLD_NODE ?? "/usr/bin/node";
const oldMajor = fs.existsSync(OLD_NODE)
  ? Number(spawnSync(OLD_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.split(".")[0])
  : 0;
const required = Number(/(\d+)/.exec(pkg.engines.node)?.[1]);
const skipReason = !oldMajor ? `no ${OLD_NODE}` : oldMajor >= required ? `${OLD_NODE} is Node ${oldMajor}, not older than ${required}` : "";

describe.skipIf(skipReason)(`worker on an unsupported Node (${skipReason || OLD_NODE})`, () => {
  it("exits at once with one line naming the Node it needs and how to get it", async () => {
    const child = spawn(OLD_NODE, ["--import", "tsx", "worker/main.ts"], {
      // A database nobody listens on: the check must come before anything touches it.
      env: { ...process.env, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", VIGIL_LOG_FORMAT: "json" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    clearTimeout(timer);
    const lines = out.trim().split("\n");
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`needs Node ${pkg.engines.node}`);
    expect(lines[0]).toContain("npm run worker");
    expect(lines[0]).not.toContain("Unknown file extension");
  });
});
