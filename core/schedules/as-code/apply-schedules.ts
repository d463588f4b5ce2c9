// Apply a schedules document: compare it with the live schedules, report the diff (create / change field by field /
// pause / delete) and, when confirmed, carry it out in ONE transaction through the same code as the console
// (createSchedule, updateSchedule, pauseInTransaction, deleteSchedule: one audit row per change, by the caller — the
// API token that applied it) plus one audit row for the apply. A dry run (the default) does the same work and rolls
// it back, so it also reports every validation error a real apply would meet.
//
// Rules, so a file and the console do not fight silently:
// - A schedule created or changed by a file is marked managed (managed_by = the file's name); the console warns
//   that its next apply overwrites a hand edit. A field left out of the file means its default.
// - A file names schedules by name. An existing schedule the file names is taken over (marked managed), even if
//   created in the console. Renaming is a delete and a create.
// - `enabled: false` pauses a schedule that is not paused; the file never resumes one (a pause is an operator's
//   decision with a misfire preview: resume it in the console or the API).
// - Managed schedules the file no longer names are deleted only with `prune`; otherwise they are listed as kept.
//   Unmanaged schedules the file does not name are never touched.
import { z } from "zod";
import type { Actor } from "../../auth/roles";
import { recordAudit } from "../../audit/record-audit";
import { inTransaction, type Queryable } from "../../db/pool";
import { DomainError, ValidationError } from "../../errors";
import { createSchedule } from "../create-schedule";
import { deleteSchedule } from "../delete-schedule";
import { pauseInTransaction } from "../pause-schedule";
import { SCHEDULE_COLUMNS, getScheduleOrThrow, toSchedule, type Schedule, type ScheduleRow } from "../schedule-record";
import { sameJson, updateSchedule } from "../update-schedule";
import { parseOrThrow } from "../validate-schedule-input";
import { maskedPaths } from "./export-schedules";
import { visibleTeamIds } from "../../teams/team-access";
import { DOCUMENT_FIELDS, documentValue, parseDocument, parseEntry, prefixFields, type DocumentField } from "./schedules-document";

export const applyInputSchema = z.strictObject({
  /** The document: its text (YAML or JSON) or the parsed object. */
  document: z.unknown().refine((d) => d !== undefined, { error: "document is required: the schedules file's text or object" }),
  /** True unless said otherwise: nothing changes without an explicit dryRun: false. */
  dryRun: z.boolean({ error: "dryRun must be true or false" }).default(true),
  /** Delete managed schedules the document does not name. */
  prune: z.boolean({ error: "prune must be true or false" }).default(false),
  /** The file's name, recorded as managed_by and in the audit trail. */
  source: z.string({ error: "source must be a string" }).trim().min(1).max(200).default("schedules file"),
});
export type ApplyInput = z.input<typeof applyInputSchema>;

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export type ApplyChange =
  | { op: "create"; name: string }
  | { op: "change"; name: string; id: string; fields: FieldChange[]; adopt: boolean }
  | { op: "pause"; name: string; id: string }
  | { op: "delete"; name: string; id: string };

export interface ApplyResult {
  dryRun: boolean;
  source: string;
  changes: ApplyChange[];
  /** Named by the document and already as it says. */
  unchanged: string[];
  /** Managed schedules the document does not name, kept because prune was not asked for. */
  notInDocument: string[];
  /** Paused schedules the document has enabled: left paused (a file never resumes). */
  leftPaused: string[];
}

export async function applySchedules(input: unknown, actor: Actor, opts: { db?: Queryable } = {}): Promise<ApplyResult> {
  const v = parseOrThrow(applyInputSchema, input ?? {});
  const doc = parseDocument(v.document);
  const wanted = Object.entries(doc.schedules).map(([name, entry]) => {
    const masked = maskedPaths(entry.payload);
    if (masked.length) {
      const message = `Schedule ${name}: payload.${masked[0]} is a masked value from an export, not the real one; write the value or {"$secret": "NAME"}`;
      throw new ValidationError(message, Object.fromEntries(masked.map((p) => [`schedules.${name}.payload${p ? `.${p}` : ""}`, message])));
    }
    return { name, entry, input: parseEntry(name, entry) };
  });
  // A schedule is created or changed after the ones of the document it runs after, so their names resolve.
  orderByRunAfter(wanted);

  return inTransaction({ tx: opts.db, dryRun: v.dryRun }, async (tx) => {
    const live = await lockLiveSchedules(tx, actor);
    const byName = new Map(live.map((s) => [s.name, s]));
    const result: ApplyResult = { dryRun: v.dryRun, source: v.source, changes: [], unchanged: [], notInDocument: [], leftPaused: [] };

    for (const w of wanted) {
      const current = byName.get(w.name);
      try {
        if (!current) {
          const created = await createSchedule({ ...w.entry, name: w.name }, actor, { db: tx });
          await markManaged(tx, created.id, v.source);
          result.changes.push({ op: "create", name: w.name });
          continue;
        }
        const fields = diffFields(current, w.input);
        const adopt = current.managedBy === null;
        if (fields.length > 0) {
          const patch = Object.fromEntries(fields.map((f) => [f.field, f.to]));
          await updateSchedule(current.id, { ...patch, revision: current.revision }, actor, { db: tx });
        }
        if (fields.length > 0 || adopt || current.managedBy !== v.source) await markManaged(tx, current.id, v.source);
        if (fields.length > 0 || adopt) result.changes.push({ op: "change", name: w.name, id: current.id, fields, adopt });
        if (w.input.enabled === false && !current.paused) {
          const locked = await getScheduleOrThrow(tx, current.id, { lock: true });
          await pauseInTransaction(tx, locked, { reason: `${v.source}: enabled: false`, until: null }, actor);
          result.changes.push({ op: "pause", name: w.name, id: current.id });
        } else if (w.input.enabled && current.paused) {
          result.leftPaused.push(w.name);
        }
        if (fields.length === 0 && !adopt && !(w.input.enabled === false && !current.paused)) result.unchanged.push(w.name);
      } catch (err) {
        throw namedError(err, w.name);
      }
    }

    const named = new Set(wanted.map((w) => w.name));
    const gone = live.filter((s) => !named.has(s.name) && s.managedBy !== null);
    if (!v.prune) result.notInDocument.push(...gone.map((s) => s.name));
    // A schedule others run after is deleted after them (deleting it first would be refused while they follow it).
    for (const s of v.prune ? followersFirst(gone) : []) {
      await deleteSchedule(s.id, actor, { db: tx, reason: `not in ${v.source} (apply --prune)` });
      result.changes.push({ op: "delete", name: s.name, id: s.id });
    }

    await recordAudit(tx, {
      actor,
      action: "schedules.apply",
      targetType: "schedules",
      targetId: null,
      after: {
        source: v.source,
        prune: v.prune,
        changes: result.changes.map((c) => ({
          op: c.op,
          name: c.name,
          ...(c.op === "change" ? { fields: c.fields.map((f) => f.field) } : {}),
        })),
        unchanged: result.unchanged.length,
      },
      reason: `applied ${v.source}`,
    });
    return result;
  });
}

// Every live schedule, locked in name order: nothing changes under the diff while it is applied.
// Only the schedules of the teams the caller operates: a file never sees, changes or prunes another team's (naming
// one is a create that meets its name, 409 name_taken).
async function lockLiveSchedules(tx: Queryable, actor: Actor): Promise<(Schedule & { managedBy: string | null })[]> {
  const teams = visibleTeamIds(actor, "operator");
  const { rows } = await tx.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.deleted_at IS NULL AND ($1::uuid[] IS NULL OR s.team_id = ANY($1::uuid[]))
      ORDER BY s.name FOR UPDATE OF s`,
    [teams],
  );
  return rows.map(toSchedule);
}

/** The fields whose stored value differs from the document's (defaults filled in). */
function diffFields(current: Schedule, wanted: Record<string, unknown>): FieldChange[] {
  const out: FieldChange[] = [];
  for (const f of DOCUMENT_FIELDS as readonly DocumentField[]) {
    const to = wanted[f];
    const from = documentValue(current, f);
    // The group's limits: only when the document gives them (a group without them keeps its limits).
    if ((f === "concurrencyLimit" || f === "startRateLimit") && to === undefined) continue;
    if (!sameJson(from ?? null, to ?? null)) out.push({ field: f, from: from ?? null, to: to ?? null });
  }
  return out;
}

async function markManaged(tx: Queryable, id: string, source: string): Promise<void> {
  await tx.query(`UPDATE schedules SET managed_by = $2, managed_at = clock_timestamp() WHERE id = $1`, [id, source]);
}

/** A refusal from the schedule code, with the schedule's name in its message and fields. */
function namedError(err: unknown, name: string): unknown {
  if (!(err instanceof DomainError)) return err;
  if (err.message.startsWith(`Schedule ${name}`)) return err;
  return new DomainError(
    err.status,
    err.code,
    `Schedule ${name}: ${err.message}`,
    prefixFields(err.fields ?? { _: err.message }, `schedules.${name}`),
  );
}

/**
 * Sorts the document's schedules so that each comes after those of the document it runs after (input order kept
 * otherwise); a cycle among them is refused naming it, as a save would refuse it.
 */
function orderByRunAfter<W extends { name: string; input: { after?: { schedule: string }[] } }>(wanted: W[]): void {
  const byName = new Map(wanted.map((w) => [w.name, w]));
  const out: W[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (w: W, path: string[]) => {
    if (state.get(w.name) === "done") return;
    if (state.get(w.name) === "visiting") {
      const cycle = [...path.slice(path.indexOf(w.name)), w.name].reverse();
      const message = `Run-after links may not form a cycle: ${cycle.join(" → ")} would wait for itself`;
      throw new ValidationError(message, { [`schedules.${w.name}.after`]: message }, "dependency_cycle");
    }
    state.set(w.name, "visiting");
    for (const l of w.input.after ?? []) {
      const up = byName.get(l.schedule);
      if (up) visit(up, [...path, w.name]);
    }
    state.set(w.name, "done");
    out.push(w);
  };
  for (const w of wanted) visit(w, []);
  wanted.splice(0, wanted.length, ...out);
}

/** The schedules to delete, each after those of them that run after it (name order otherwise). */
function followersFirst(gone: readonly Schedule[]): Schedule[] {
  const ids = new Set(gone.map((s) => s.id));
  const out: Schedule[] = [];
  const done = new Set<string>();
  const visit = (s: Schedule, depth: number) => {
    if (done.has(s.id) || depth > gone.length) return;
    for (const f of s.followedBy ?? []) {
      const follower = ids.has(f.id) ? gone.find((g) => g.id === f.id) : undefined;
      if (follower) visit(follower, depth + 1);
    }
    if (done.has(s.id)) return;
    done.add(s.id);
    out.push(s);
  };
  for (const s of gone) visit(s, 0);
  return out;
}
