import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findImportCycles } from "./find-import-cycles";

const root = path.resolve(import.meta.dirname, "../..");

describe("import circles", () => {
  it("no module in app/, components/, core/, worker/, scripts/, sdk/, test/, e2e/ or bench/ imports itself through others", () => {
    const cycles = findImportCycles(root, ["app", "components", "core", "worker", "scripts", "sdk", "test", "e2e", "bench"]);
    expect(cycles.map((c) => c.join(" → "))).toEqual([]);
    // Parses every source file: about 2 s on an idle machine, far more on a shared, loaded one.
  }, 180_000);

  describe("on a fixture tree", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-import-cycles-"));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    write("lib/leaf.ts", `export const leaf = 1;\n`);
    write("lib/uses-leaf.ts", `import { leaf } from "./leaf";\nimport { z } from "zod";\nexport const x = leaf + z.length;\n`);
    // A circle through a type-only import, the "@/" alias, a .tsx file and a re-export.
    write(
      "lib/enqueue.ts",
      `import type { Format } from "./webhook/format";\nexport type Event = "opened";\nexport const f: Format = "a";\n`,
    );
    write("lib/webhook/format.ts", `import type { Event } from "@/lib/enqueue";\nexport type Format = "a" | Event;\n`);
    write("ui/menu.tsx", `import { useCan } from "./use-can";\nexport const meQuery = () => useCan;\n`);
    write("ui/use-can.tsx", `export { meQuery } from "./menu.tsx";\nexport const useCan = 1;\n`);

    it("reports each circle as a path that returns to its start", () => {
      expect(findImportCycles(dir, ["lib", "ui"])).toEqual([
        ["lib/enqueue.ts", "lib/webhook/format.ts", "lib/enqueue.ts"],
        ["ui/menu.tsx", "ui/use-can.tsx", "ui/menu.tsx"],
      ]);
    });

    it("reports nothing once each import points one way", () => {
      write("lib/webhook/format.ts", `export type Format = "a";\n`);
      write("ui/use-can.tsx", `export const useCan = 1;\n`);
      expect(findImportCycles(dir, ["lib", "ui"])).toEqual([]);
    });
  });
});
