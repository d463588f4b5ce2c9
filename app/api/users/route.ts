import { z } from "zod";
import { userItem } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute } from "../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { createUser } from "@/core/auth/create-user";
import { listUsers } from "@/core/auth/list-users";
import { createUserSchema } from "@/core/auth/user-input";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { access: "admin", scope: "admin", summary: "Console accounts.", answer: z.object({ users: z.array(userItem) }) },
  async () => ({ users: await listUsers(getPool()) }),
);

export const POST = apiRoute(
  {
    access: "admin",
    scope: "admin",
    summary: "Create a console account (audited).",
    answer: z.object({ user: userItem }),
    body: createUserSchema,
  },
  async ({ body, actor }) => ({
    user: await createUser(body, actor),
  }),
);
