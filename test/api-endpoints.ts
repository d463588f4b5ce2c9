// Every API route, discovered from the file tree (not a hand-kept list), with a made-up uuid for each
// path parameter: the table the access and bad-input tests run over.
import fs from "node:fs";
import path from "node:path";
import type { callRoute } from "./call-route";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type RouteHandler = Parameters<typeof callRoute>[0];
export interface Endpoint {
  key: string;
  method: string;
  path: string;
  params: Record<string, string>;
  handler: RouteHandler;
}

function routeFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name === "route.ts")
    .map((d) => path.join(d.parentPath, d.name));
}

export async function discoverEndpoints(): Promise<Endpoint[]> {
  const root = path.resolve(import.meta.dirname, "..");
  const out: Endpoint[] = [];
  for (const file of routeFiles(path.join(root, "app", "api")).sort()) {
    const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
    const params: Record<string, string> = {};
    const segments = rel.map((s) => {
      const m = /^\[(\.\.\.)?(\w+)\]$/.exec(s);
      if (!m) return s;
      // Ids are UUIDs; a secret is addressed by its NAME (upper case), which a UUID is not.
      params[m[2]!] = m[2] === "name" ? "ENDPOINT_PROBE" : crypto.randomUUID();
      return params[m[2]!]!;
    });
    const route = `/${rel.join("/")}`;
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      if (typeof mod[method] !== "function") continue;
      out.push({ key: `${method} ${route}`, method, path: `/${segments.join("/")}`, params, handler: mod[method] as RouteHandler });
    }
  }
  return out;
}
