// Finds import circles among the project's TypeScript files. A circle (a → b → a) makes the order modules load in
// matter, hides which side owns a type or rule, and is the first thing a newcomer trips over, so every import,
// type-only ones included, has to point one way. The walk reads each file's static imports and re-exports with
// TypeScript's own parser and resolves the project's specifiers (relative paths and the "@/" alias); packages are
// outside the graph.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const SOURCE = /\.(ts|tsx)$/;
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

/** Every .ts/.tsx file under `dirs` (relative to `root`), skipping node_modules and dot-folders. */
export function listSourceFiles(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return out.sort();
}

/** The module specifiers a file imports or re-exports statically (`import type` included). */
export function importSpecifiers(file: string, text = fs.readFileSync(file, "utf8")): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const specs: string[] = [];
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      specs.push(statement.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const expr = statement.moduleReference.expression;
      if (ts.isStringLiteral(expr)) specs.push(expr.text);
    }
  }
  return specs;
}

/** The project file a specifier names, or null for a package or anything outside `files`. */
export function resolveSpecifier(from: string, spec: string, root: string, files: Set<string>): string | null {
  let base: string;
  if (spec.startsWith("./") || spec.startsWith("../")) base = path.resolve(path.dirname(from), spec);
  else if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else return null;
  // "./x.js" names "./x.ts" under the bundler's resolution.
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.jsx?$/, ".tsx")];
  for (const c of candidates) for (const ext of EXTENSIONS) if (files.has(c + ext)) return c + ext;
  return null;
}

/** Each import circle once, as the files in order with the first repeated at the end (paths relative to root). */
export function findImportCycles(root: string, dirs: string[]): string[][] {
  const files = listSourceFiles(root, dirs);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const targets = importSpecifiers(f)
      .map((s) => resolveSpecifier(f, s, root, known))
      .filter((t): t is string => t !== null);
    edges.set(f, [...new Set(targets)]);
  }
  return stronglyConnected(files, edges)
    .filter((c) => c.length > 1 || (edges.get(c[0]!) ?? []).includes(c[0]!))
    .map((component) => circleThrough(component, edges).map((f) => path.relative(root, f)));
}

// Tarjan's algorithm: every group of files that can all reach each other holds at least one circle.
function stronglyConnected(nodes: string[], edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      groups.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return groups;
}

// One concrete circle inside a group, found by a breadth-first walk back to its first file, so a report names a
// path a reader can follow rather than a bag of files.
function circleThrough(group: string[], edges: Map<string, string[]>): string[] {
  const start = group[0]!;
  const inGroup = new Set(group);
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const circle = [v];
        while (circle[0] !== start) circle.unshift(parent.get(circle[0]!)!);
        return [...circle, start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...group, start];
}
