// PUT /api/secrets/:name/access   (the secret's team admin) body { access: { schedules, tags, handlers } } → { secret } — replaces which
//     schedules may refer to the secret (named, or carrying one of the tags; if handlers are listed, only with one of
//     them). Audited with the rule before and after; the value is never involved. Schedules saved before keep their
//     reference, but their runs fail (naming the rule) until the rule or the schedule changes.
import { secretItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../../_lib/api-route";
import { secretNameSchema, setSecretAccess } from "@/core/secrets/secret-store";

export const dynamic = "force-dynamic";

const params = z.object({ name: secretNameSchema });

export const PUT = apiRoute(
  {
    access: "operator",
    scope: "secrets:write",
    object: { kind: "secret", param: "name", need: "admin" },
    summary: "Replace which schedules may refer to a secret (audited).",
    answer: z.object({ secret: secretItem }),
    params,
    body: z.object({ access: z.record(z.string(), z.unknown(), { error: "access must be an object" }) }),
  },
  async ({ params, body, actor }) => setSecretAccess(params.name, body.access, actor),
);
