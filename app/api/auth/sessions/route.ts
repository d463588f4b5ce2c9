// GET /api/auth/sessions   (any signed-in user) → { sessions: [{ id, createdAt, lastSeenAt, expiresAt, ip, userAgent,
//   current }] } — the caller's own live console sessions, most recently seen first.
import { z } from "zod";
import { iso } from "@/app/api/_lib/contract/answer-shapes";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { SESSION_COOKIE } from "@/core/auth/authenticate";
import { listUserSessions } from "@/core/auth/user-sessions";
import { ForbiddenError } from "@/core/errors";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "any",
    summary: "The caller's own live console sessions, most recently seen first.",
    answer: z.object({
      sessions: z.array(
        z.looseObject({ id: z.string(), createdAt: iso, lastSeenAt: iso.nullable(), expiresAt: iso, current: z.boolean() }),
      ),
    }),
  },
  async ({ req, actor }) => {
    if (actor.type !== "user") throw new ForbiddenError("API tokens have no sessions; sign in to the console to see yours.");
    return { sessions: await listUserSessions(getPool(), actor.id!, req.cookies.get(SESSION_COOKIE)?.value ?? null) };
  },
);
