// A schedule's run-after links as an operator writes them: `after: [{schedule, condition, mapping, mappingTimezone?}]`
// with the upstream named by name or id, and the wait deadline. What each condition and mapping means is owned by
// core/runs/chain/chain-rules.ts; this file only validates the shape.
import { z } from "zod";
import { timeZoneSchema } from "./trigger";
import { CHAIN_CONDITIONS, CHAIN_MAPPINGS, type ChainCondition, type ChainMapping } from "../runs/chain/chain-rules";

export const MAX_UPSTREAMS = 20;

export const runAfterLinkSchema = z
  .strictObject(
    {
      schedule: z
        .string({ error: "schedule must be the name (or id) of the schedule to run after" })
        .trim()
        .min(1, { error: "Name the schedule to run after" })
        .max(80, { error: "Schedule name must be at most 80 characters" }),
      condition: z
        .enum(CHAIN_CONDITIONS, { error: `Run-after condition must be one of ${CHAIN_CONDITIONS.join(", ")}` })
        .default("succeeded"),
      mapping: z.enum(CHAIN_MAPPINGS, { error: `Run-after mapping must be one of ${CHAIN_MAPPINGS.join(", ")}` }).default("same_time"),
      /** The zone whose calendar day `same_day` compares (required for it, refused for the others). */
      mappingTimezone: timeZoneSchema.nullable().optional(),
    },
    {
      error:
        'Each run-after link must be {schedule: "<name>", condition: "succeeded" | "finished" | "failed", mapping: "same_time" | "latest_before" | "same_day", mappingTimezone?}',
    },
  )
  .superRefine((v, ctx) => {
    if (v.mapping === "same_day" && !v.mappingTimezone)
      ctx.addIssue({
        code: "custom",
        path: ["mappingTimezone"],
        message: "Mapping same_day needs the zone whose calendar day it compares (mappingTimezone), e.g. Europe/Paris",
      });
    if (v.mapping !== "same_day" && v.mappingTimezone)
      ctx.addIssue({
        code: "custom",
        path: ["mappingTimezone"],
        message: `mappingTimezone applies to mapping same_day only; mapping ${v.mapping} compares instants`,
      });
  });

export const runAfterSchema = z
  .array(runAfterLinkSchema, { error: 'Run-after must be a list, e.g. [{"schedule": "ledger-close", "condition": "succeeded"}]' })
  .max(MAX_UPSTREAMS, { error: `At most ${MAX_UPSTREAMS} schedules to run after` });

export type RunAfterInput = z.output<typeof runAfterSchema>;
export type RunAfterLinkInput = z.output<typeof runAfterLinkSchema>;

/** A resolved link, as the schedule answer carries it (`after`). */
export interface RunAfterLink {
  id: string;
  name: string;
  condition: ChainCondition;
  mapping: ChainMapping;
  mappingTimezone: string | null;
}

/** Schedules that run after this one (`followedBy`). */
export interface FollowerRef {
  id: string;
  name: string;
}
