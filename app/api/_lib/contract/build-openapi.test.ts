import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildOpenApi, contractGaps, listOperations } from "./build-openapi";
import { findRouteFiles, renderRouteIndex } from "./render-route-index";
import { renderClientOperations } from "@/core/api-client/render-client-operations";

const root = path.resolve(import.meta.dirname, "../../../..");
const regenerate = "run `npm run generate:api` and commit what it writes";

describe("the API contract (GET /api/openapi.json)", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const doc = buildOpenApi();
    const res = await new Validator().validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    // The validator does refuse a broken document (this check can fail).
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, { responses: unknown }>> };
    broken.paths["/api/runs"]!.get!.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("covers every route file under app/api", () => {
    expect(
      fs.readFileSync(path.join(root, "app/api/_lib/contract/route-index.gen.ts"), "utf8"),
      `route index is stale: ${regenerate}`,
    ).toBe(renderRouteIndex(root));
    const paths = Object.keys(buildOpenApi().paths as object);
    const files = findRouteFiles(root).map((f) => f.path);
    expect(files.filter((p) => !paths.includes(p))).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
  });

  it("has a summary, an answer schema and (unless public) a token scope for every operation", () => {
    const ops = listOperations();
    const gaps = ops.map((op) => ({ op: `${op.method} ${op.path}`, missing: contractGaps(op) })).filter((g) => g.missing.length);
    expect(gaps).toEqual([]);
    // A route that forgot its scope is a gap (this check can fail).
    const runs = ops.find((op) => op.method === "GET" && op.path === "/api/runs")!;
    expect(contractGaps({ ...runs, spec: { ...runs.spec, scope: undefined } })).toEqual(["scope"]);
  });

  it("gives each operation a unique operationId and its path parameters", () => {
    const doc = buildOpenApi() as {
      paths: Record<string, Record<string, { operationId: string; parameters: { in: string; name: string }[] }>>;
    };
    const ids = Object.values(doc.paths).flatMap((m) => Object.values(m).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const cancel = doc.paths["/api/runs/{id}/cancel"]!.post!;
    expect(cancel.parameters).toContainEqual(expect.objectContaining({ in: "path", name: "id" }));
    const runs = doc.paths["/api/runs"]!.get!;
    expect(runs.parameters.map((p) => p.name)).toContain("state");
  });

  it("the typed client's operations are generated from the current contract", async () => {
    expect(fs.readFileSync(path.join(root, "core/api-client/operations.gen.ts"), "utf8"), `typed client is stale: ${regenerate}`).toBe(
      await renderClientOperations(buildOpenApi()),
    );
  });
});
