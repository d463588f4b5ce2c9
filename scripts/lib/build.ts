// Decides whether the production build in .next is missing or older than the sources.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "core", "public", "next.config.js", "package-lock.json", "tsconfig.json", "prisma/schema.prisma"];
const STAMP = path.join(".next", "vigil-source-hash");

function walk(p: string, out: string[]): void {
  if (!fs.existsSync(p)) return;
  const st = fs.statSync(p);
  if (st.isFile()) {
    out.push(p);
    return;
  }
  for (const e of fs.readdirSync(p).sort()) {
    if (e === "node_modules" || e === "generated" || e.endsWith(".test.ts")) continue;
    walk(path.join(p, e), out);
  }
}

export function sourceHash(): string {
  const files: string[] = [];
  for (const s of SOURCES) walk(s, files);
  const h = crypto.createHash("sha256");
  for (const f of files) h.update(f).update("\0").update(fs.readFileSync(f));
  return h.digest("hex");
}

export function buildIsCurrent(): boolean {
  return fs.existsSync(path.join(".next", "BUILD_ID")) && fs.existsSync(STAMP) && fs.readFileSync(STAMP, "utf8") === sourceHash();
}

export function stampBuild(): void {
  fs.writeFileSync(STAMP, sourceHash());
}
