// The next fire times of a trigger before it is saved, flagged where DST moves or repeats them, counted
// from the database clock (an interval without an anchor counts from now, as it would if created now).
import { z } from "zod";
import { dbNow, type Queryable } from "../db/pool";
import { computeNextFireTimes, type FireTime } from "./compute-next-fire-times";
import { describeTrigger } from "./describe-trigger";
import { assertOnceInFuture, triggerSchema } from "./trigger";

export const MAX_PREVIEW = 500;

export const previewInputSchema = z.strictObject({
  trigger: triggerSchema,
  count: z
    .number({ error: "Count must be a number of fire times" })
    .int({ error: "Count must be a whole number" })
    .min(1, { error: "Count must be at least 1" })
    .max(MAX_PREVIEW, { error: `Count must be at most ${MAX_PREVIEW}` })
    .default(10),
  /** Start of the preview (default: now); must be an ISO instant. */
  from: z.iso.datetime({ offset: true, error: "From must be an ISO 8601 date-time with an offset" }).optional(),
});

export type PreviewInput = z.output<typeof previewInputSchema>;

export interface PreviewResult {
  now: string;
  description: string;
  fires: { at: string; localTime: string; utcOffset: string; dst?: FireTime["dst"] }[];
}

/** `v` is parsed by previewInputSchema (the API route's body schema); a one-off's time is checked here against the database clock. */
export async function previewTrigger(db: Queryable, v: PreviewInput): Promise<PreviewResult> {
  const now = await dbNow(db);
  assertOnceInFuture(v.trigger, now);
  const from = v.from ? new Date(v.from) : now;
  const fires = computeNextFireTimes(v.trigger, from, v.count, { anchor: now, includeSkipped: true });
  return {
    now: now.toISOString(),
    description: describeTrigger(v.trigger),
    fires: fires.map((f) => ({ at: f.at.toISOString(), localTime: f.localTime, utcOffset: f.utcOffset, ...(f.dst ? { dst: f.dst } : {}) })),
  };
}
