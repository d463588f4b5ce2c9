// The spread action: for one concurrency group or tag, propose hashed minutes / phases (spread-offsets.ts) and show
// the load curve before and after. A dry run (the default) only computes: it writes nothing. Applying edits each
// moved schedule through the normal update path (updateSchedule: revision, validation, replan of its planned rows,
// its own schedule.edit audit row) in one transaction, plus one schedules.spread audit row for the action; the
// audit rows are written after the last schedule and run lock (record-audit.ts's lock order).
import { mayInTeam } from "../teams/team-access";
import { z } from "zod";
import type { Actor } from "../auth/roles";
import { recordAudits, type AuditInput } from "../audit/record-audit";
import { getPool, inTransaction, type Queryable } from "../db/pool";
import { describeTrigger } from "../schedules/describe-trigger";
import { scheduleUpdateSchema } from "../schedules/schedule-input";
import { SCHEDULE_COLUMNS, toSchedule, type Schedule, type ScheduleRow } from "../schedules/schedule-record";
import { updateSchedule } from "../schedules/update-schedule";
import { parseOrThrow } from "../schedules/validate-schedule-input";
import { ValidationError } from "../errors";
import {
  computeLoadForecast,
  inScope,
  loadBurstSchema,
  loadCurveSchema,
  loadGroupSchema,
  loadScopeFields,
  readLoadFleet,
  type LoadForecast,
} from "./load-forecast";
import { proposeSpread } from "./spread-offsets";

export const spreadInputSchema = z.strictObject({
  window: loadScopeFields.window,
  by: z.enum(["group", "tag"], { error: "by must be group or tag: a spread moves the schedules of one group or tag" }),
  key: z.string({ error: "key must name the group or tag" }).min(1, { error: "key must name the group or tag" }).max(200),
  /** Schedules of the scope to leave as they are. */
  keep: z
    .array(z.uuid({ error: "keep must list schedule ids" }))
    .max(10_000)
    .default([]),
  /** Default true: only propose. */
  dryRun: z.boolean({ error: "dryRun must be true or false" }).default(true),
});
export type SpreadInput = z.input<typeof spreadInputSchema>;

const loadViewSchema = z.object({ curve: loadCurveSchema, groups: z.array(loadGroupSchema), bursts: z.array(loadBurstSchema) });

export const spreadResultSchema = z.object({
  dryRun: z.boolean(),
  window: z.enum(["24h", "7d"]),
  by: z.enum(["group", "tag"]),
  key: z.string(),
  moved: z.array(z.object({ id: z.string(), name: z.string(), from: z.string(), to: z.string(), change: z.string() })),
  kept: z.array(z.object({ id: z.string(), name: z.string(), reason: z.string() })),
  before: loadViewSchema,
  after: loadViewSchema,
  /** Schedules edited (0 in a dry run). */
  applied: z.number().int(),
});
export type SpreadResult = z.infer<typeof spreadResultSchema>;

interface Plan {
  moved: SpreadResult["moved"];
  kept: SpreadResult["kept"];
  changed: Map<string, Schedule["trigger"]>;
}

function planSpread(schedules: readonly Schedule[], keep: ReadonlySet<string>): Plan {
  const plan: Plan = { moved: [], kept: [], changed: new Map() };
  for (const s of schedules) {
    if (keep.has(s.id)) {
      plan.kept.push({ id: s.id, name: s.name, reason: "kept by the operator" });
      continue;
    }
    const d = proposeSpread(s.id, s.trigger);
    if (d.kind === "keep") {
      plan.kept.push({ id: s.id, name: s.name, reason: d.reason });
      continue;
    }
    plan.changed.set(s.id, d.trigger);
    plan.moved.push({ id: s.id, name: s.name, from: s.triggerDescription, to: describeTrigger(d.trigger), change: d.change });
  }
  return plan;
}

const view = (f: LoadForecast) => ({ curve: f.curve, groups: f.groups, bursts: f.bursts });

/** `opts.db`: the caller's transaction (tests); without, the reads use the pool and the apply its own transaction. */
export async function spreadLoad(input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<SpreadResult> {
  const v = parseOrThrow(spreadInputSchema, input ?? {});
  const db = opts.db ?? getPool();
  const scope = { window: v.window, by: v.by, key: v.key };
  const fleet = await readLoadFleet(db, v.window);
  // Only the schedules of the teams the caller operates move (the others' load is counted, not changed).
  const members = fleet.schedules.filter((s) => inScope(s, scope) && mayInTeam(actor, s.teamId, "operator"));
  if (members.length === 0) {
    const message = `No schedule is in the ${v.by} ${v.key}`;
    throw new ValidationError(message, { key: message });
  }
  const plan = planSpread(members, new Set(v.keep));
  const before = computeLoadForecast(fleet, scope);
  const moved = fleet.schedules.map((s) => (plan.changed.has(s.id) ? { ...s, trigger: plan.changed.get(s.id)! } : s));
  const after = computeLoadForecast({ ...fleet, schedules: moved }, scope);
  const result: SpreadResult = {
    dryRun: v.dryRun,
    window: v.window,
    by: v.by,
    key: v.key,
    moved: plan.moved,
    kept: plan.kept,
    before: view(before),
    after: view(after),
    applied: 0,
  };
  if (v.dryRun || plan.moved.length === 0) return result;

  const applied = await inTransaction({ tx: opts.db }, async (tx) => {
    // Every schedule of the action is locked first, in id order (two spreads never deadlock on each other).
    const ids = [...plan.changed.keys()].sort();
    const { rows } = await tx.query<ScheduleRow>(
      `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.id = ANY($1::uuid[]) AND s.deleted_at IS NULL ORDER BY s.id FOR UPDATE OF s`,
      [ids],
    );
    const audits: AuditInput[] = [];
    const edits: { name: string; from: string; to: string }[] = [];
    for (const current of rows.map(toSchedule)) {
      // Proposed again from the locked row: an edit made since the preview is spread from what it is now.
      if (!inScope(current, scope) || v.keep.includes(current.id) || !mayInTeam(actor, current.teamId, "operator")) continue;
      const d = proposeSpread(current.id, current.trigger);
      if (d.kind === "keep") continue;
      const patch = scheduleUpdateSchema.parse({ revision: current.revision, trigger: d.trigger });
      const after = await updateSchedule(current.id, patch, actor, { db: tx, auditInto: audits });
      edits.push({ name: current.name, from: current.triggerDescription, to: after.triggerDescription });
    }
    audits.push({
      actor,
      action: "schedules.spread",
      targetType: v.by === "group" ? "group" : "tag",
      targetId: v.key,
      after: { by: v.by, key: v.key, moved: edits, kept: plan.kept.map((k) => ({ name: k.name, reason: k.reason })) },
    });
    await recordAudits(tx, audits);
    return edits.length;
  });
  return { ...result, applied };
}
