// The shapes a user or token may be created or changed with: shared by the API routes and the CLI.
import { z } from "zod";
import { roleSchema } from "./roles";
import { passwordSchema } from "./password";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "Use at most 254 characters.")
  .pipe(z.email("Enter an email address like ops@example.com."));

// Names are shown in the console and written to the audit trail: printable text, no control characters.
const displayName = z
  .string()
  .trim()
  .max(100, "Use at most 100 characters.")
  .regex(/^[^\p{Cc}]*$/u, "Remove control characters.");

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
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: "Change at least one of role, disabled, password or name." });
export type UpdateUserInput = z.infer<typeof updateUserSchema>;

export const createTokenSchema = z
  .object({
    name: displayName.min(1, "Give the token a name, e.g. the job that uses it."),
    role: roleSchema,
  })
  .strict();
export type CreateTokenInput = z.infer<typeof createTokenSchema>;
