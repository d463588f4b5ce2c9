import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleUrl } from "./vigil";

// Each case starts the CLI under tsx: about 1.5 s idle, many times that on a loaded machine.
const CLI_MS = 120_000;

const root = path.resolve(import.meta.dirname, "..");

/** Runs `npm run vigil -- …` as a user would (tsx on Node), with only the given settings. */
function vigil(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/vigil.ts", ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? "", ...env } as unknown as NodeJS.ProcessEnv, timeout: CLI_MS, encoding: "utf8" },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npm run vigil -- --help", () => {
  for (const flag of ["--help", "-h", "help"]) {
    it(
      `${flag} prints the usage only, on stdout, and exits 0`,
      async () => {
        const r = await vigil([flag]);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe("");
        expect(r.stdout).toMatch(/^Usage: vigil \[options\] \[command\]\n/);
        expect(r.stdout).toMatch(/\n {2}export \[options\] +print the schedules/);
        expect(r.stdout).not.toMatch(/unknown/i);
      },
      CLI_MS,
    );
  }

  it(
    "an unknown option is still a usage error (exit 2)",
    async () => {
      const r = await vigil(["export", "--nope"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/unknown option '--nope'[\s\S]*--help/);
    },
    CLI_MS,
  );
});

describe("the console the CLI talks to", () => {
  it("is VIGIL_URL when set, else the local console on PORT (3000 unless set)", () => {
    expect(consoleUrl({})).toBe("http://localhost:3000");
    expect(consoleUrl({ PORT: "4123" })).toBe("http://localhost:4123");
    expect(consoleUrl({ PORT: "4123", VIGIL_URL: "https://vigil.example.com/" })).toBe("https://vigil.example.com");
    expect(consoleUrl({ PORT: "", VIGIL_URL: " " })).toBe("http://localhost:3000");
  });

  describe("with a console on PORT", () => {
    const seen: { url?: string; auth?: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      res.writeHead(200, { "content-type": "text/yaml" }).end("schedules: []\n");
    });
    beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it(
      "export reaches it without VIGIL_URL",
      async () => {
        const port = (server.address() as AddressInfo).port;
        const r = await vigil(["export"], { PORT: String(port), VIGIL_TOKEN: "vgl_test" });
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(r.stdout).toBe("schedules: []\n");
        expect(seen).toEqual([{ url: "/api/schedules/export?format=yaml", auth: "Bearer vgl_test" }]);
      },
      CLI_MS,
    );
  });
});
