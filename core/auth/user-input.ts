// The shapes a user or token may be created or changed with: shared by the API routes and the CLI.
import { z } from "zod";
import { roleSchema } from "./roles";
import { passwordSchema } from "./password";
import { tokenScopeSchema } from "./token-scopes";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "Use at most 254 characters.")
  .pipe(z.email("Enter an email address like ops@example.com."));

// Names are shown in the console and written to the audit trail. Letters of any script, digits,
// spaces and the punctuation names use (O'Brien, ci:nightly, deploy-bot/eu) — no markup, quotes,
// semicolons or control characters, which no real name needs.
const displayName = z
  .string()
  .trim()
  .max(100, "Use at most 100 characters.")
  .regex(/^[\p{L}\p{M}\p{N} .,'’()\-_@:/+#]*$/u, "Use letters, digits, spaces and . , ' ( ) - _ @ : / + # only.");

export const createUserSchema = z
  .object({
    email: emailSchema,
    name: displayName.default(""),
    password: passwordSchema,
    role: roleSchema,
  })
  .strict();
export type CreateUserInput = z.input<typeof createUserSchema>;

export const updateUserSchema = z
  .object({
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
    password: passwordSchema.optional(),
    name: displayName.optional(),
    /** The program permission (running programs on worker hosts) for an operator; admins hold it by role. */
    canRunPrograms: z.boolean().optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), {
    message: "Change at least one of role, disabled, password, name or canRunPrograms.",
  });
export type UpdateUserInput = z.infer<typeof updateUserSchema>;

export const createTokenSchema = z
  .object({
    name: displayName.min(1, "Give the token a name, e.g. the job that uses it."),
    role: roleSchema,
    /** The one team it acts for (id or name); absent: every team its creator may act in. */
    team: z.string().trim().min(1).max(100).optional(),
    /** What it may do (core/auth/token-scopes.ts); absent or empty: everything its role allows. */
    scopes: z
      .array(tokenScopeSchema)
      .max(50)
      .default([])
      .transform((s) => [...new Set(s)]),
    /** Days until it stops working; the default and the maximum come from VIGIL_TOKEN_TTL_DAYS / _MAX_TTL_DAYS. */
    expiresInDays: z
      .number({ error: "Give the lifetime as a whole number of days." })
      .int("Give the lifetime as a whole number of days.")
      .min(1, "A token lives at least 1 day.")
      .optional(),
  })
  .strict();
export type CreateTokenInput = z.input<typeof createTokenSchema>;
