// Which teams, with which role, a user signed in through OIDC belongs to: VIGIL_OIDC_TEAM_RULES, a JSON array of
// rules, each a claim test and the team role it grants. The shapes providers send are all covered:
//   {"claim": "groups", "equals": "payments-oncall", "team": "payments", "role": "operator"}        group names
//   {"claim": "groups", "oneOf": ["6f1c…", "9a2e…"], "team": "data", "role": "viewer"}             Entra ID group object ids
//   {"emailDomain": "example.com", "team": "default", "role": "viewer"}                               Google Workspace (no groups)
//   {"emails": ["ana@example.com"], "team": "data", "role": "admin"}                                an explicit user list
//   {"claim": "resource_access.vigil.roles", "equals": "ops", "team": "ops", "role": "operator"}     Keycloak client roles
// A claim path is dotted into the ID token / userinfo claims (role-map.ts's claimValues). Email rules read the
// `email` claim and only when the provider says it is verified. Teams are named, not by id, so the rules read the same
// on every installation; a rule naming a team that does not exist grants nothing (logged at sign-in).
import { z } from "zod";
import { teamRoleSchema, type TeamRole } from "../../teams/team-roles";
import { claimValues } from "./role-map";

const nonEmpty = z.string().trim().min(1).max(500);

export const teamRuleSchema = z
  .object({
    claim: nonEmpty.optional(),
    equals: nonEmpty.optional(),
    oneOf: z.array(nonEmpty).min(1).optional(),
    emailDomain: z.union([nonEmpty, z.array(nonEmpty).min(1)]).optional(),
    emails: z.array(nonEmpty).min(1).optional(),
    team: nonEmpty,
    role: teamRoleSchema,
  })
  .strict()
  .superRefine((r, ctx) => {
    const tests = [r.equals, r.oneOf, r.emailDomain, r.emails].filter((t) => t !== undefined).length;
    if (tests !== 1) ctx.addIssue({ code: "custom", message: "give exactly one of equals, oneOf, emailDomain, emails" });
    if ((r.equals !== undefined || r.oneOf !== undefined) && !r.claim) {
      ctx.addIssue({
        code: "custom",
        message: "equals and oneOf test a claim: name it with claim (a dotted path, e.g. realm_access.roles)",
      });
    }
    if ((r.emailDomain !== undefined || r.emails !== undefined) && r.claim) {
      ctx.addIssue({ code: "custom", message: "emailDomain and emails read the verified email claim: leave claim out" });
    }
  });
export type TeamRule = z.infer<typeof teamRuleSchema>;

/** Parses VIGIL_OIDC_TEAM_RULES; throws an Error saying which rule is wrong. */
export function parseTeamRules(text: string): TeamRule[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(
      'is not JSON: give an array of rules, e.g. [{"claim":"groups","equals":"payments-oncall","team":"payments","role":"operator"}]',
    );
  }
  if (!Array.isArray(json)) throw new Error("must be a JSON array of rules");
  return json.map((rule, i) => {
    const parsed = teamRuleSchema.safeParse(rule);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`rule ${i + 1}: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
    }
    return parsed.data;
  });
}

// When several rules give one team, the strongest role wins; auditor (the audit trail only) only when no other does.
const strength: Record<TeamRole, number> = { auditor: 0, viewer: 1, operator: 2, admin: 3 };

function ruleMatches(rule: TeamRule, claims: Record<string, unknown>, verifiedEmail: string | null): boolean {
  if (rule.equals !== undefined) return claimValues(claims, rule.claim!).includes(rule.equals);
  if (rule.oneOf !== undefined) {
    const values = claimValues(claims, rule.claim!);
    return rule.oneOf.some((v) => values.includes(v));
  }
  if (!verifiedEmail) return false;
  if (rule.emails !== undefined) return rule.emails.some((e) => e.toLowerCase() === verifiedEmail);
  const domains = [rule.emailDomain ?? []].flat().map((d) => d.toLowerCase().replace(/^@/, ""));
  return domains.includes(verifiedEmail.slice(verifiedEmail.lastIndexOf("@") + 1));
}

/** The role by team name that the rules give these claims (verifiedEmail: lower case, or null when unverified). */
export function mapTeamRoles(
  rules: readonly TeamRule[],
  claims: Record<string, unknown>,
  verifiedEmail: string | null,
): Map<string, TeamRole> {
  const out = new Map<string, TeamRole>();
  for (const rule of rules) {
    if (!ruleMatches(rule, claims, verifiedEmail)) continue;
    const had = out.get(rule.team);
    if (had === undefined || strength[rule.role] > strength[had]) out.set(rule.team, rule.role);
  }
  return out;
}
