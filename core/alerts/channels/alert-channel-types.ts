// What an alert channel is: its type, the settings each type takes (none of them secret), the secrets each type
// needs (kept in the secret store, never answered back) and its routing. Shared by the API, the console and the
// worker (pure, no database).
import { z } from "zod";
import { ALERT_KINDS } from "../alert-kinds";

export const ALERT_CHANNEL_TYPES = ["email", "pagerduty", "teams", "webhook", "slack"] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

export const ALERT_CHANNEL_TYPE_INFO: Record<AlertChannelType, { label: string; secrets: readonly ChannelSecretField[] }> = {
  email: { label: "Email (SMTP)", secrets: ["password"] },
  pagerduty: { label: "PagerDuty", secrets: ["routingKey"] },
  teams: { label: "Microsoft Teams", secrets: ["url"] },
  webhook: { label: "Webhook (Vigil JSON)", secrets: ["url"] },
  slack: { label: "Slack", secrets: ["url"] },
};

export const CHANNEL_SECRET_FIELDS = ["password", "routingKey", "url"] as const;
export type ChannelSecretField = (typeof CHANNEL_SECRET_FIELDS)[number];

/** A secret the channel cannot send without (the SMTP password is optional: many relays need no login). */
export const REQUIRED_CHANNEL_SECRETS: Record<AlertChannelType, readonly ChannelSecretField[]> = {
  email: [],
  pagerduty: ["routingKey"],
  teams: ["url"],
  webhook: ["url"],
  slack: ["url"],
};

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

const httpUrl = (what: string) => z.url({ protocol: /^https?$/, error: `${what} must be an http(s) URL` });
const consoleUrl = httpUrl("consoleUrl").optional();
const emailAddress = z.email({ error: "must be an email address" });

export const emailSettingsSchema = z.strictObject({
  host: z.string().trim().min(1, { error: "host is required" }).max(253),
  port: z.number().int().min(1).max(65535).default(587),
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: z.boolean().default(false),
  user: z.string().max(256).optional(),
  from: emailAddress,
  to: z.array(emailAddress).min(1, { error: "to needs at least one address" }).max(50),
  consoleUrl,
});
export const pagerdutySettingsSchema = z.strictObject({
  endpoint: httpUrl("endpoint").default(PAGERDUTY_EVENTS_URL),
  consoleUrl,
});
export const plainSettingsSchema = z.strictObject({ consoleUrl });

export const CHANNEL_SETTINGS_SCHEMAS = {
  email: emailSettingsSchema,
  pagerduty: pagerdutySettingsSchema,
  teams: plainSettingsSchema,
  webhook: plainSettingsSchema,
  slack: plainSettingsSchema,
} as const;

export type EmailSettings = z.infer<typeof emailSettingsSchema>;
export type PagerdutySettings = z.infer<typeof pagerdutySettingsSchema>;
export type ChannelSettings = EmailSettings | PagerdutySettings | z.infer<typeof plainSettingsSchema>;

export const channelRoutingSchema = z.strictObject({
  /** Empty: every kind. */
  kinds: z.array(z.enum(ALERT_KINDS, { error: `Alert kind must be one of ${ALERT_KINDS.join(", ")}` })).default([]),
  /** Empty with tags empty: every schedule, and alerts about no schedule (no live worker, planner behind). */
  scheduleIds: z
    .array(z.uuid({ error: "scheduleIds must be schedule ids" }))
    .max(500)
    .default([]),
  tags: z.array(z.string().trim().min(1).max(100)).max(100).default([]),
});
export type ChannelRouting = z.infer<typeof channelRoutingSchema>;

const secretValue = z
  .string({ error: "must be a string" })
  .min(4, { error: "must be at least 4 characters" })
  .max(16 * 1024);
/** Write-only: each value goes to the secret store. On an update an omitted field keeps the stored value. */
export const channelSecretsInputSchema = z.strictObject({
  password: secretValue.optional(),
  routingKey: secretValue.optional(),
  url: httpUrl("url").optional(),
});
export type ChannelSecretsInput = z.infer<typeof channelSecretsInputSchema>;

export const channelNameSchema = z
  .string({ error: "name is required" })
  .trim()
  .min(1, { error: "name is required" })
  .max(100, { error: "name is at most 100 characters" });

/** POST and PUT body; settings are checked against the type's schema by parseChannelSettings. */
export const channelInputSchema = z.strictObject({
  name: channelNameSchema,
  type: z.enum(ALERT_CHANNEL_TYPES, { error: `type must be one of ${ALERT_CHANNEL_TYPES.join(", ")}` }),
  settings: z.record(z.string(), z.unknown()).default({}),
  secrets: channelSecretsInputSchema.default({}),
  routing: channelRoutingSchema.default({ kinds: [], scheduleIds: [], tags: [] }),
  enabled: z.boolean().default(true),
  /** The team a new channel goes into (name or id; default: the caller's only team where it is admin). A channel
   * routes only its team's alerts and those about no schedule; it does not move between teams. */
  team: z.string({ error: "team must be a team's name or id" }).min(1).optional(),
});
export type ChannelInput = z.infer<typeof channelInputSchema>;

/** An alert channel as the API answers it (JSON): which secrets are set, never their values or their names. */
export const alertChannelViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  team: z.string(),
  type: z.enum(ALERT_CHANNEL_TYPES),
  settings: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.boolean()),
  routing: z.object({ kinds: z.array(z.string()), scheduleIds: z.array(z.string()), tags: z.array(z.string()) }),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  createdBy: z.string(),
  updatedAt: z.iso.datetime(),
  updatedBy: z.string(),
});
/** The same before serialisation: times are Dates. */
export type AlertChannelView = Omit<z.infer<typeof alertChannelViewSchema>, "createdAt" | "updatedAt"> & {
  createdAt: Date;
  updatedAt: Date;
};
