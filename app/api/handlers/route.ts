// GET /api/handlers   (viewer) → { handlers: [{ name, description, payloadSchema (JSON Schema of the payload as a
//   caller writes it; defaulted fields optional) }] } sorted by name — the job types a schedule can use.
import { apiRoute } from "../_lib/api-route";
import { listHandlers } from "@/core/handlers/handler-registry";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "viewer" }, async () => ({ handlers: listHandlers() }));
