// `npm run generate:api`: writes the route index the API contract is built from
// (app/api/_lib/contract/route-index.gen.ts), then the typed client generated from that contract
// (core/api-client/operations.gen.ts). Run it after adding or changing a route; a test fails when either is stale.
import fs from "node:fs";
import path from "node:path";
import { renderRouteIndex } from "../app/api/_lib/contract/render-route-index";

const root = path.resolve(import.meta.dirname, "..");
const indexFile = path.join(root, "app/api/_lib/contract/route-index.gen.ts");
const clientFile = path.join(root, "core/api-client/operations.gen.ts");

function writeIfChanged(file: string, text: string): void {
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return;
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${path.relative(root, file)}\n`);
}

writeIfChanged(indexFile, renderRouteIndex(root));
// Imported only now: the contract reads the index just written.
const { buildOpenApi } = await import("../app/api/_lib/contract/build-openapi");
const { renderClientOperations } = await import("../core/api-client/render-client-operations");
writeIfChanged(clientFile, await renderClientOperations(buildOpenApi()));
