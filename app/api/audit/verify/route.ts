import { verifyAnswer } from "@/app/api/_lib/contract/answer-shapes";
import { z } from "zod";
import { apiRoute } from "../../_lib/api-route";
import { getPool } from "@/core/db/pool";
import { auditAnchorSchema } from "@/core/audit/audit-anchor";
import { verifyAuditAgainstKnownAnchor } from "@/core/audit/verify-known-anchor";
import { getEnv } from "@/core/env";

export const dynamic = "force-dynamic";

// ?anchorSeq=&anchorHash=[&anchorCount=&anchorAt=]: verify against that anchor; without, against the newest known one.
const anchorQuery = z
  .object({
    anchorSeq: z.string().optional(),
    anchorHash: z.string().optional(),
    anchorCount: z.string().optional(),
    anchorAt: z.string().optional(),
  })
  .transform((q, ctx) => {
    if (q.anchorSeq === undefined && q.anchorHash === undefined) return null;
    const parsed = auditAnchorSchema.safeParse({ seq: q.anchorSeq, hash: q.anchorHash, count: q.anchorCount, at: q.anchorAt });
    if (!parsed.success) {
      for (const i of parsed.error.issues) {
        const key = `anchor${String(i.path[0] ?? "").replace(/^./, (c) => c.toUpperCase())}`;
        ctx.addIssue({ code: "custom", path: [key], message: i.message });
      }
      return z.NEVER;
    }
    return parsed.data;
  });

export const GET = apiRoute(
  {
    access: "viewer",
    scope: "audit:read",
    summary: "Verify the audit hash chain against the newest known anchor, or the one given in the query.",
    answer: verifyAnswer,
    query: anchorQuery,
  },
  async ({ query }) => verifyAuditAgainstKnownAnchor(getPool(), query, { anchorFile: getEnv().VIGIL_AUDIT_ANCHOR_FILE }),
);

// The anchor as published, sent as is (a line of the anchor file, or the webhook's body): {seq, hash, count?, at?}.
const anchorBody = auditAnchorSchema.extend({ type: z.literal("vigil.audit_anchor").optional() });

export const POST = apiRoute(
  {
    access: "viewer",
    scope: "audit:read",
    summary: "Verify the audit hash chain against a published anchor sent as the body.",
    answer: verifyAnswer,
    body: anchorBody,
  },
  async ({ body: { type: _type, ...anchor } }) => verifyAuditAgainstKnownAnchor(getPool(), anchor),
);
