// The create/edit form's state, kept as strings where the operator types, and its one mapping to the
// request body the schedules API takes. Field names of the body match the API's, so the server's
// per-field errors ("trigger.cron", "timeoutSeconds") land next to the input that caused them.
// An edit round-trips what the form does not show: the interval's anchor is kept in the values, and the PATCH
// carries only the fields the operator changed (editBodyFromForm), so an untouched field — a trigger the
// inputs can only approximate included — is never rewritten and an unchanged trigger is never re-planned.

import type { Jsonify } from "@/core/jsonify";
import type { Trigger } from "@/core/schedules/trigger";
import type { ScheduleView } from "./schedules-queries";
import type { ScheduleCalendarValue } from "../calendars/schedule-calendars-fieldset";
import type { RunAfterValue } from "./run-after-fieldset";

export type TriggerKind = "cron" | "interval" | "once";

export interface ScheduleFormValues {
  name: string;
  description: string;
  handler: string;
  payloadText: string;
  triggerKind: TriggerKind;
  cron: string;
  timezone: string;
  dstGap: "shift" | "skip";
  dstRepeat: "once" | "twice";
  everySeconds: string;
  /** Not shown: the interval's anchor (ISO) as saved, "" for none; kept so an edit does not move the fire grid. */
  intervalAnchor: string;
  /** datetime-local value, read in the viewer's zone. */
  onceAt: string;
  overlapPolicy: string;
  misfirePolicy: string;
  catchUpLimit: string;
  startingDeadlineSeconds: string;
  timeoutSeconds: string;
  graceSeconds: string;
  retryMaxAttempts: string;
  retryBaseSeconds: string;
  retryMaxSeconds: string;
  concurrencyGroup: string;
  concurrencyLimit: string;
  /** The group's start-rate limit: at most startRateMax starts per startRatePer seconds ("" = none). */
  startRateMax: string;
  startRatePer: string;
  startJitterMs: string;
  expectRecordsMin: string;
  latenessP95SloMs: string;
  latenessMaxMs: string;
  completionDeadlineSeconds: string;
  failureAlertThreshold: string;
  retentionDays: string;
  webhookUrl: string;
  webhookFormat: "vigil" | "slack";
  /** Comma- or space-separated tags, e.g. "team:payments, nightly". */
  tagsText: string;
  /** datetime-local values, read in the viewer's zone; "" = no start / no end date. */
  startsAt: string;
  endsAt: string;
  /** Business calendars it follows, in order, by name. */
  calendars: ScheduleCalendarValue[];
  /** Schedules it runs after, in order, by name (core/runs/chain/). */
  after: RunAfterValue[];
  waitDeadlineSeconds: string;
  /** The owning team's id ("" = let the API pick the caller's only team); an edit sends it only when it changed (a move). */
  team: string;
  /** Its name, shown on an edit. */
  teamName: string;
}

export const DEFAULT_FORM: ScheduleFormValues = {
  name: "",
  description: "",
  handler: "",
  payloadText: "{}",
  triggerKind: "cron",
  cron: "0 2 * * *",
  timezone: "UTC",
  dstGap: "shift",
  dstRepeat: "once",
  everySeconds: "60",
  intervalAnchor: "",
  onceAt: "",
  overlapPolicy: "skip",
  misfirePolicy: "run_once",
  catchUpLimit: "10",
  startingDeadlineSeconds: "60",
  timeoutSeconds: "300",
  graceSeconds: "5",
  retryMaxAttempts: "1",
  retryBaseSeconds: "2",
  retryMaxSeconds: "300",
  concurrencyGroup: "",
  concurrencyLimit: "",
  startRateMax: "",
  startRatePer: "",
  startJitterMs: "0",
  expectRecordsMin: "",
  latenessP95SloMs: "",
  latenessMaxMs: "",
  completionDeadlineSeconds: "",
  failureAlertThreshold: "",
  retentionDays: "",
  webhookUrl: "",
  webhookFormat: "vigil",
  tagsText: "",
  startsAt: "",
  endsAt: "",
  calendars: [],
  after: [],
  waitDeadlineSeconds: "3600",
  team: "",
  teamName: "",
};

/** A trigger as the API takes it (core/schedules/trigger.ts). */
export type TriggerBody = Jsonify<Trigger>;

/** A number field: the number when it parses, else the raw text so the server names the field in its error. */
function num(text: string): number | string {
  const t = text.trim();
  if (t === "") return t;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

function optionalNum(text: string): number | string | null {
  return text.trim() === "" ? null : num(text);
}

export function triggerFromForm(v: ScheduleFormValues): TriggerBody {
  switch (v.triggerKind) {
    case "cron":
      return { kind: "cron", cron: v.cron, timezone: v.timezone, dst: { gap: v.dstGap, repeat: v.dstRepeat } };
    case "interval":
      return { kind: "interval", everySeconds: num(v.everySeconds) as number, ...(v.intervalAnchor ? { anchor: v.intervalAnchor } : {}) };
    case "once": {
      const d = v.onceAt ? new Date(v.onceAt) : null;
      return { kind: "once", at: d && !Number.isNaN(d.getTime()) ? d.toISOString() : v.onceAt };
    }
  }
}

/** The JSON body for POST /api/schedules and PATCH /api/schedules/:id (plus `revision` there). */
export function scheduleBodyFromForm(v: ScheduleFormValues): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = v.payloadText.trim() === "" ? {} : JSON.parse(v.payloadText);
  } catch {
    payload = v.payloadText;
  }
  return {
    name: v.name.trim(),
    description: v.description,
    handler: v.handler,
    payload,
    trigger: triggerFromForm(v),
    overlapPolicy: v.overlapPolicy,
    misfirePolicy: v.misfirePolicy,
    catchUpLimit: num(v.catchUpLimit),
    startingDeadlineSeconds: num(v.startingDeadlineSeconds),
    timeoutSeconds: num(v.timeoutSeconds),
    graceSeconds: num(v.graceSeconds),
    retryMaxAttempts: num(v.retryMaxAttempts),
    retryBaseSeconds: num(v.retryBaseSeconds),
    retryMaxSeconds: num(v.retryMaxSeconds),
    concurrencyGroup: v.concurrencyGroup.trim() === "" ? null : v.concurrencyGroup.trim(),
    ...(v.concurrencyGroup.trim() !== "" && v.concurrencyLimit.trim() !== "" ? { concurrencyLimit: num(v.concurrencyLimit) } : {}),
    ...startRateBody(v),
    startJitterMs: num(v.startJitterMs),
    expectRecordsMin: optionalNum(v.expectRecordsMin),
    latenessP95SloMs: optionalNum(v.latenessP95SloMs),
    latenessMaxMs: optionalNum(v.latenessMaxMs),
    completionDeadlineSeconds: optionalNum(v.completionDeadlineSeconds),
    failureAlertThreshold: optionalNum(v.failureAlertThreshold),
    retentionDays: optionalNum(v.retentionDays),
    webhookUrl: v.webhookUrl.trim() === "" ? null : v.webhookUrl.trim(),
    webhookFormat: v.webhookFormat,
    tags: tagsFromText(v.tagsText),
    startsAt: instantFromLocal(v.startsAt),
    endsAt: instantFromLocal(v.endsAt),
    calendars: v.calendars,
    after: v.after.map((l) => ({
      schedule: l.schedule.trim(),
      condition: l.condition,
      mapping: l.mapping,
      ...(l.mapping === "same_day" ? { mappingTimezone: l.mappingTimezone ?? "" } : {}),
    })),
    waitDeadlineSeconds: num(v.waitDeadlineSeconds),
    ...(v.team ? { team: v.team } : {}),
  };
}

/** A datetime-local value as the ISO instant the API takes; "" → null; text that does not parse goes as is. */
function instantFromLocal(local: string): string | null {
  if (local.trim() === "") return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

/** "team:payments, nightly" → ["team:payments", "nightly"]; the server validates, deduplicates and sorts. */
export function tagsFromText(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * The PATCH body of an edit (plus `revision`): only the fields whose value differs from the form as it was
 * loaded. A field the operator did not touch is left out, so the server keeps it exactly as stored.
 */
export function editBodyFromForm(initial: ScheduleFormValues, v: ScheduleFormValues): Record<string, unknown> {
  const before = scheduleBodyFromForm(initial);
  const after = scheduleBodyFromForm(v);
  // Emptying both rate fields of a group that had a rate limit removes it (a new schedule's empty fields keep the group's).
  if (before.startRateLimit && !("startRateLimit" in after) && v.concurrencyGroup.trim() !== "") after.startRateLimit = null;
  return Object.fromEntries(Object.entries(after).filter(([k, value]) => JSON.stringify(value) !== JSON.stringify(before[k])));
}

/** The group's start-rate limit when both fields are filled in; left out when both are empty (keep the group's). */
function startRateBody(v: ScheduleFormValues): Record<string, unknown> {
  if (v.concurrencyGroup.trim() === "") return {};
  if (v.startRateMax.trim() === "" && v.startRatePer.trim() === "") return {};
  return { startRateLimit: { maxStarts: num(v.startRateMax), perSeconds: num(v.startRatePer) } };
}

const text = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));

/** The form, filled from a saved schedule (for edit). */
export function formFromSchedule(s: ScheduleView): ScheduleFormValues {
  const t = s.trigger;
  return {
    ...DEFAULT_FORM,
    name: s.name,
    description: s.description,
    handler: s.handler,
    payloadText: JSON.stringify(s.payload ?? {}, null, 2),
    triggerKind: t.kind,
    cron: t.kind === "cron" ? t.cron : DEFAULT_FORM.cron,
    timezone: t.kind === "cron" ? t.timezone : s.timezone || "UTC",
    dstGap: t.kind === "cron" ? (t.dst.gap as "shift" | "skip") : "shift",
    dstRepeat: t.kind === "cron" ? (t.dst.repeat as "once" | "twice") : "once",
    everySeconds: t.kind === "interval" ? String(t.everySeconds) : DEFAULT_FORM.everySeconds,
    intervalAnchor: t.kind === "interval" ? (t.anchor ?? "") : "",
    onceAt: t.kind === "once" ? toLocalInput(t.at) : "",
    overlapPolicy: s.overlapPolicy,
    misfirePolicy: s.misfirePolicy,
    catchUpLimit: text(s.catchUpLimit),
    startingDeadlineSeconds: text(s.startingDeadlineSeconds),
    timeoutSeconds: text(s.timeoutSeconds),
    graceSeconds: text(s.graceSeconds),
    retryMaxAttempts: text(s.retryMaxAttempts),
    retryBaseSeconds: text(s.retryBaseSeconds),
    retryMaxSeconds: text(s.retryMaxSeconds),
    concurrencyGroup: s.concurrencyGroup ?? "",
    concurrencyLimit: text(s.concurrencyLimit),
    startRateMax: text(s.startRateLimit?.maxStarts),
    startRatePer: text(s.startRateLimit?.perSeconds),
    startJitterMs: text(s.startJitterMs),
    expectRecordsMin: text(s.expectRecordsMin),
    latenessP95SloMs: text(s.latenessP95SloMs),
    latenessMaxMs: text(s.latenessMaxMs),
    completionDeadlineSeconds: text(s.completionDeadlineSeconds),
    failureAlertThreshold: text(s.failureAlertThreshold),
    retentionDays: text(s.retentionDays),
    webhookUrl: s.webhookUrl ?? "",
    webhookFormat: s.webhookFormat,
    tagsText: (s.tags ?? []).join(", "),
    startsAt: s.startsAt ? toLocalInput(s.startsAt) : "",
    endsAt: s.endsAt ? toLocalInput(s.endsAt) : "",
    calendars: (s.calendars ?? []).map((c) => ({ calendar: c.name, policy: c.policy })),
    after: (s.after ?? []).map((l) => ({
      schedule: l.name,
      condition: l.condition,
      mapping: l.mapping,
      ...(l.mappingTimezone ? { mappingTimezone: l.mappingTimezone } : {}),
    })),
    waitDeadlineSeconds: text(s.waitDeadlineSeconds),
    team: s.teamId,
    teamName: s.team,
  };
}

/** datetime-local text ("2026-12-01T09:00") for an instant, in the viewer's zone. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
