// PUT    /api/secrets/:name   (team admin) body { value, access?, team? } → { secret, replaced } — creates or replaces the value
//        (write-only: it is encrypted with VIGIL_SECRET_KEY and never answered back); 409 secret_key_missing without
//        the key. access ({ schedules, tags, handlers }) says which schedules may use it: a new secret without one
//        may be used by none; a replaced value keeps its rule unless one is given (PUT …/access changes it alone).
//        team (name or id): the team a new secret goes into, where the caller must be admin (default: its only such
//        team; 422 team_required naming them when it has several); an existing secret stays in its team.
// DELETE /api/secrets/:name   (team admin) → { name, deleted } — 409 secret_in_use naming the schedules that refer to it.
// Only the admins of the secret's team (and the global admin) write it: a team operator may refer to a secret the
// rule allows, never read or change one.
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
    access: "operator",
    scope: "secrets:write",
    object: { kind: "secret", param: "name", need: "admin" },
    summary: "Create or replace a secret's value (write-only; audited).",
    answer: z.object({ secret: secretItem, replaced: z.boolean() }),
    errors: ["secret_key_missing", "team_required", "unknown_team", "secret_team_fixed"],
    params,
    body: z.object({
      value: z.string({ error: "value must be a string" }),
      access: secretAccessSchema.optional(),
      team: z.string({ error: "team must be a team's name or id" }).min(1).optional(),
    }),
  },
  async ({ params, body, actor }) => setSecret(params.name, body.value, actor, { access: body.access, team: body.team }),
);

export const DELETE = apiRoute(
  {
    access: "operator",
    scope: "secrets:write",
    object: { kind: "secret", param: "name", need: "admin" },
    summary: "Delete a secret no schedule refers to (audited).",
    answer: z.object({ name: z.string(), deleted: z.literal(true) }),
    errors: ["secret_in_use"],
    params,
  },
  async ({ params, actor }) => deleteSecret(params.name, actor),
);
