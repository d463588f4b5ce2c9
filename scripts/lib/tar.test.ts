import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createTarGz, extractTarGz } from "./tar";

const dirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-tar-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("backup archive (tar.gz)", () => {
  it("round-trips folders, files of any size and long paths", async () => {
    const src = tmp();
    const big = Buffer.alloc(1024 * 1024 + 7, 7);
    fs.writeFileSync(path.join(src, "big"), big);
    const out = path.join(tmp(), "a.tar.gz");
    const tar = createTarGz(out);
    const long = `${"d".repeat(90)}/${"e".repeat(60)}/file`;
    await tar.addDirectory("base");
    expect(await tar.addFile("base/big", path.join(src, "big"))).toBe(true);
    expect(await tar.addFile("base/gone", path.join(src, "gone"))).toBe(false);
    await tar.addBuffer(long, Buffer.from("x"));
    await tar.addBuffer("empty", Buffer.alloc(0));
    await tar.finish();
    const dest = tmp();
    const names = await extractTarGz(out, dest);
    expect(names).toEqual(["base/", "base/big", long, "empty"]);
    expect(fs.readFileSync(path.join(dest, "base/big")).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(dest, long), "utf8")).toBe("x");
    expect(fs.statSync(path.join(dest, "empty")).size).toBe(0);
  });

  it("refuses an entry that would land outside the folder, and a cut-short archive", async () => {
    const out = path.join(tmp(), "evil.tar.gz");
    const tar = createTarGz(out);
    await tar.addBuffer("../escaped", Buffer.from("x"));
    await tar.finish();
    await expect(extractTarGz(out, tmp())).rejects.toThrow(/outside the folder/);

    const ok = path.join(tmp(), "ok.tar.gz");
    const t2 = createTarGz(ok);
    await t2.addBuffer("f", Buffer.alloc(5000, 1));
    await t2.finish();
    const raw = zlib.gunzipSync(fs.readFileSync(ok));
    const cut = path.join(tmp(), "cut.tar.gz");
    fs.writeFileSync(cut, zlib.gzipSync(raw.subarray(0, 2048)));
    await expect(extractTarGz(cut, tmp())).rejects.toThrow(/cut short/);
  });
});
