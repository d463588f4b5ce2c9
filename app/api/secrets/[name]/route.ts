// PUT    /api/secrets/:name   (admin) body { value, access? } → { secret, replaced } — creates or replaces the value
//        (write-only: it is encrypted with VIGIL_SECRET_KEY and never answered back); 409 secret_key_missing without
//        the key. access ({ schedules, tags, handlers }) says which schedules may use it: a new secret without one
//        may be used by none; a replaced value keeps its rule unless one is given (PUT …/access changes it alone).
// DELETE /api/secrets/:name   (admin) → { name, deleted } — 409 secret_in_use naming the schedules that refer to it.
// Payloads use a secret as {"$secret": "NAME"} anywhere a string goes; the worker fills the value in at run time.
import { secretItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { deleteSecret, secretNameSchema, setSecret } from "@/core/secrets/secret-store";
import { secretAccessSchema } from "@/core/secrets/secret-access";

export const dynamic = "force-dynamic";

const params = z.object({ name: secretNameSchema });

export const PUT = apiRoute(
  {
    access: "admin",
    scope: "secrets:write",
    object: { kind: "secret", param: "name" },
    summary: "Create or replace a secret's value (write-only; audited).",
    answer: z.object({ secret: secretItem, replaced: z.boolean() }),
    errors: ["secret_key_missing"],
    params,
    body: z.object({ value: z.string({ error: "value must be a string" }), access: secretAccessSchema.optional() }),
  },
  async ({ params, body, actor }) => setSecret(params.name, body.value, actor, { access: body.access }),
);

export const DELETE = apiRoute(
  {
    access: "admin",
    scope: "secrets:write",
    object: { kind: "secret", param: "name" },
    summary: "Delete a secret no schedule refers to (audited).",
    answer: z.object({ name: z.string(), deleted: z.literal(true) }),
    errors: ["secret_in_use"],
    params,
  },
  async ({ params, actor }) => deleteSecret(params.name, actor),
);
