// The loader as an operator meets it: a folder of modules outside the checkout, and every way it can be wrong
// ending in one line that names the file and the problem.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HandlerLoadError, loadHandlers } from "./load-handlers";

const dirs: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-jobs-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const handler = (name: string) => `
import { defineHandler, z } from "vigil/sdk";
export const h = defineHandler({ name: ${JSON.stringify(name)}, description: "d", payload: z.object({}), async run() { return { records: 1 }; } });
`;

async function loadError(dir: string): Promise<string> {
  try {
    await loadHandlers({ sources: [dir] });
  } catch (err) {
    expect(err).toBeInstanceOf(HandlerLoadError);
    const message = (err as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    return message;
  }
  throw new Error("expected the folder to be refused");
}

describe("loading handler modules", () => {
  it("loads the built-ins, then every top-level module of a folder; helpers in _files and subfolders are not handler modules", async () => {
    const dir = folder({
      "a.ts": handler("acme.a"),
      "b.mjs": `import { defineHandler, z } from "vigil/sdk";\nexport default defineHandler({ name: "acme.b", description: "", payload: z.object({}), async run() {} });\n`,
      "_shared.ts": "export const helper = 1;\n",
      "lib/util.ts": "export const x = 1;\n",
      "a.test.ts": "throw new Error('not loaded');\n",
    });
    const loaded = await loadHandlers({ sources: [dir] });
    const custom = loaded.filter((h) => !h.builtin);
    expect(custom.map((h) => [h.def.name, path.basename(h.source)])).toEqual([
      ["acme.a", "a.ts"],
      ["acme.b", "b.mjs"],
    ]);
    expect(loaded.some((h) => h.builtin && h.def.name === "ledger.post")).toBe(true);
  });

  it("loads the repository's examples the way a user's folder is loaded", async () => {
    const loaded = await loadHandlers({ sources: ["examples/handlers"] });
    expect(loaded.filter((h) => !h.builtin).map((h) => h.def.name)).toEqual(["examples.daily-totals", "examples.fetch-json"]);
  });

  it("refuses a module that fails to import, naming the file", async () => {
    const dir = folder({ "ok.ts": handler("acme.ok"), "broken.ts": `import "./does-not-exist.ts";\n` });
    expect(await loadError(dir)).toMatch(new RegExp(`^${path.join(dir, "broken.ts")}: could not load: `));
  });

  it("refuses a module whose handler throws while it is defined (a bad name)", async () => {
    const dir = folder({ "bad-name.ts": handler("NoDots") });
    expect(await loadError(dir)).toMatch(/bad-name\.ts: could not load: .*must look like "area\.action"/);
  });

  it("refuses two handlers with one name, and a name taken by a built-in", async () => {
    const dup = folder({ "one.ts": handler("acme.same"), "two.ts": handler("acme.same") });
    expect(await loadError(dup)).toMatch(/two\.ts: handler "acme\.same" is already defined by .*one\.ts$/);
    const builtin = folder({ "mine.ts": handler("ledger.post") });
    expect(await loadError(builtin)).toMatch(/mine\.ts: handler "ledger\.post" is already defined by a built-in handler/);
  });

  it("refuses a module without a handler, and an export that only looks like one", async () => {
    expect(await loadError(folder({ "empty.ts": "export const nothing = 1;\n" }))).toMatch(/empty\.ts: exports no handler/);
    const fake = folder({ "fake.ts": `export const job = { name: "acme.fake", description: "", run: async () => ({}) };\n` });
    expect(await loadError(fake)).toMatch(/fake\.ts: export "job" looks like a handler but was not made with defineHandler/);
  });

  it("refuses a source that does not exist", async () => {
    expect(await loadError(path.join(os.tmpdir(), "no-such-jobs-folder-xyz"))).toMatch(/no such file or folder/);
  });
});
