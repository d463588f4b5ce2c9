// The API contract (OpenAPI 3.1) built from the routes' own apiRoute specs: params, query and body from the
// schemas that parse them, the success answer from `answer`. Nothing here is written by hand per route.
import { z } from "zod";
import type { ApiHandler, RouteSpec } from "../api-route";
import { ROUTE_MODULES } from "./route-index.gen";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ContractOperation {
  method: HttpMethod;
  /** OpenAPI path: /api/runs/{id} */
  path: string;
  spec: RouteSpec;
}

type JsonSchema = Record<string, unknown>;

/** Every operation of every route module, in file-tree order. */
export function listOperations(): ContractOperation[] {
  const ops: ContractOperation[] = [];
  for (const { path, module } of ROUTE_MODULES) {
    for (const method of HTTP_METHODS) {
      const handler = (module as Record<string, unknown>)[method] as ApiHandler | undefined;
      if (typeof handler !== "function") continue;
      if (!handler.spec) throw new Error(`${method} ${path} does not go through apiRoute`);
      ops.push({ method, path, spec: handler.spec });
    }
  }
  return ops;
}

/** What a route's spec is missing for the contract (empty when complete). */
export function contractGaps(op: ContractOperation): string[] {
  const gaps: string[] = [];
  if (!op.spec.summary?.trim()) gaps.push("summary");
  if (!op.spec.answer) gaps.push("answer");
  // The token scope it needs (core/auth/token-scopes.ts): without one a scoped token could never call it.
  if (op.spec.access !== "public" && !op.spec.scope) gaps.push("scope");
  return gaps;
}

// Input schemas are described as a client sends them (before transforms).
function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const s = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete s.$schema;
  return s;
}

const errorBody: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        fields: { type: "object", additionalProperties: { type: "string" } },
      },
    },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

export function tagOf(op: Pick<ContractOperation, "path" | "spec">): string {
  return op.spec.tag ?? op.path.split("/")[2] ?? "api";
}

export function operationId(op: Pick<ContractOperation, "method" | "path">): string {
  const words = op.path
    .replace(/^\/api\//, "")
    .split(/[/.-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith("{") ? `by ${w.slice(1, -1)}` : w))
    .join(" ")
    .split(" ");
  return [op.method.toLowerCase(), ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

function parametersOf(op: ContractOperation): JsonSchema[] {
  const params: JsonSchema[] = [];
  const pathNames = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const pathSchema = op.spec.params ? toSchema(op.spec.params, "input") : null;
  const pathProps = (pathSchema?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of pathNames) params.push({ name, in: "path", required: true, schema: pathProps[name] ?? { type: "string" } });
  if (op.spec.query) {
    const q = toSchema(op.spec.query, "input");
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, JsonSchema>)) {
      const list = op.spec.listParams?.includes(name);
      params.push({
        name,
        in: "query",
        required: required.has(name),
        ...(list ? { description: "Several values: repeat the parameter or separate them with commas." } : {}),
        schema,
      });
    }
  }
  return params;
}

function operationOf(op: ContractOperation): JsonSchema {
  const { spec } = op;
  const media = spec.answerMedia ?? "application/json";
  const responses: Record<string, unknown> = {
    "200": {
      description: spec.summary ?? "",
      // Read as "input" so an object answer is not declared closed (additionalProperties: false): clients must
      // ignore fields they do not know, and the answer checks in the tests hold only the fields declared.
      ...(spec.answer ? { content: { [media]: { schema: toSchema(spec.answer, "input") } } } : {}),
    },
    "400": errorResponse("Malformed request (bad_request, invalid_query, malformed_json, and others)."),
    "422": errorResponse("A field is not valid (validation_failed with fields)."),
    "503": errorResponse("The database is unavailable (database_unavailable); retry."),
  };
  if (spec.access !== "public") {
    responses["401"] = errorResponse("No valid session or API token (unauthorized).");
    responses["403"] = errorResponse(
      `Needs the ${spec.access} role (forbidden)${spec.scope && spec.scope !== "any" ? `, a token needs the scope ${[spec.scope].flat().join(" or ")} (scope_missing)` : ""}, or a cross-site change (cross_origin).`,
    );
  }
  if (op.path.includes("{")) responses["404"] = errorResponse("Nothing at this address (not_found).");
  if (spec.errors?.length) responses["4XX"] = errorResponse(`Refusals of this operation (error.code): ${spec.errors.join(", ")}.`);
  return {
    operationId: operationId(op),
    summary: spec.summary,
    tags: [tagOf(op)],
    "x-vigil-access": spec.access,
    ...(spec.scope ? { "x-vigil-scope": spec.scope } : {}),
    ...(spec.errors?.length ? { "x-vigil-errors": [...spec.errors] } : {}),
    ...(spec.access === "public" ? { security: [] } : {}),
    parameters: parametersOf(op),
    ...(spec.body ? { requestBody: { required: true, content: { "application/json": { schema: toSchema(spec.body, "input") } } } } : {}),
    responses,
  };
}

let cached: JsonSchema | null = null;

/** The whole document (built once per process: the routes do not change while it runs). */
export function buildOpenApi(): JsonSchema {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of listOperations()) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationOf(op);
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Vigil API",
      version: "1",
      description:
        "The console's HTTP API. Authenticate with an API token (Admin page) as `Authorization: Bearer <token>`, or a console session. Errors answer `{error: {code, message, fields?}}`.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerToken: [] }, { sessionCookie: [] }],
    tags: [...new Set(listOperations().map(tagOf))].sort().map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "An API token from the Admin page." },
        sessionCookie: { type: "apiKey", in: "cookie", name: "vigil_session" },
      },
      schemas: { Error: errorBody },
    },
  };
  return cached;
}
