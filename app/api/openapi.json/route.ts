// GET /api/openapi.json   (public) → the API contract, OpenAPI 3.1, built from the routes' own schemas
//   (app/api/_lib/contract/build-openapi.ts). Public like a published API reference: it holds shapes, no data.
import { z } from "zod";
import { apiRoute } from "../_lib/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "public",
    summary: "The API contract: this document (OpenAPI 3.1).",
    answer: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string() }), paths: z.record(z.string(), z.unknown()) }),
    tag: "meta",
  },
  // Imported when asked: the builder reads every route module (this one included) through the route index.
  async () => (await import("../_lib/contract/build-openapi")).buildOpenApi(),
);
