// Admin changes to one account: role, disabled, password reset, name.
import { userItem } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { updateUser } from "@/core/auth/update-user";
import { updateUserSchema } from "@/core/auth/user-input";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Change an account: role, disabled, password reset, name (audited).",
    answer: z.object({ user: userItem }),
    params: z.object({ id: z.uuid() }),
    body: updateUserSchema,
  },
  async ({ params, body, actor }) => ({
    user: await updateUser(params.id, body, actor),
  }),
);
