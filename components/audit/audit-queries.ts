import { infiniteQueryOptions } from "@tanstack/react-query";
import { fetchJson } from "../ui/fetch-json";
import type { Jsonify } from "@/core/jsonify";
import type { AuditEventView as CoreAuditEventView } from "@/core/audit/list-audit";
import type { AnchoredVerification } from "@/core/audit/verify-audit-anchor";

export interface AuditFilterValues {
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
  q?: string;
}

export const FILTER_KEYS = ["actor", "action", "target", "from", "to", "q"] as const;

/** An audit row as the API sends it (core/audit/list-audit.ts). */
export type AuditEventView = Jsonify<CoreAuditEventView>;

export interface AuditPage {
  events: AuditEventView[];
  nextCursor: string | null;
}

/** GET /api/audit/verify (core/audit/verify-audit-anchor.ts): the chain check plus the check against the last anchor. */
export type AuditVerification = Jsonify<AnchoredVerification>;

/** Known actions, offered as suggestions; the filter accepts any. */
export const KNOWN_ACTIONS = [
  "schedule.create",
  "schedule.edit",
  "schedule.delete",
  "schedule.pause",
  "schedule.resume",
  "schedule.auto_resume",
  "schedule.trigger",
  "schedule.backfill",
  "run.cancel",
  "run.rerun",
  "runs.bulk_cancel",
  "runs.bulk_rerun",
  "run.missed",
  "run.zombie_reaped",
  "auth.login",
  "auth.login_failure",
  "auth.login_blocked",
  "auth.logout",
  "user.create",
  "user.role_change",
  "user.disable",
  "user.enable",
  "user.password_reset",
  "user.rename",
  "user.program_permission_grant",
  "user.program_permission_revoke",
  "user.sso_link",
  "token.create",
  "token.revoke",
  "secret.set",
  "secret.replace",
  "secret.access",
  "secret.delete",
  "secret.reencrypt",
  "audit.export",
];

export function filterFromParams(params: URLSearchParams): AuditFilterValues {
  const f: AuditFilterValues = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}

export function filterToParams(f: AuditFilterValues): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f[k]) p.set(k, f[k]!);
  return p;
}

/** `team`: one of the caller's teams (the header's team switcher). */
export const auditQuery = (filter: AuditFilterValues, team?: string) =>
  infiniteQueryOptions({
    queryKey: ["audit", filter, team ?? null],
    queryFn: ({ pageParam }) => {
      const p = filterToParams(filter);
      if (team) p.set("team", team);
      p.set("limit", "50");
      if (pageParam) p.set("cursor", pageParam);
      return fetchJson<AuditPage>(`/api/audit?${p}`);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
