import { describe, expect, it } from "vitest";
import { editBodyFromForm, formFromSchedule, scheduleBodyFromForm, triggerFromForm } from "./schedule-form-values";
import type { ScheduleView } from "./schedules-queries";

const saved = (trigger: ScheduleView["trigger"]): ScheduleView =>
  ({
    id: "0f0e0d0c-0000-4000-8000-000000000001",
    name: "anchored",
    description: "before",
    handler: "demo.noop",
    payload: { a: 1 },
    trigger,
    triggerDescription: "",
    timezone: "UTC",
    enabled: true,
    paused: null,
    overlapPolicy: "skip",
    misfirePolicy: "run_once",
    catchUpLimit: 10,
    startingDeadlineSeconds: 45,
    waitDeadlineSeconds: 3600,
    timeoutSeconds: 300,
    graceSeconds: 5,
    retryMaxAttempts: 1,
    retryBaseSeconds: 2,
    retryMaxSeconds: 300,
    concurrencyGroup: null,
    concurrencyLimit: null,
    startJitterMs: 0,
    expectRecordsMin: null,
    latenessP95SloMs: null,
    latenessMaxMs: 5000,
    completionDeadlineSeconds: null,
    failureAlertThreshold: null,
    retentionDays: null,
    webhookUrl: null,
    webhookFormat: "vigil",
    tags: ["nightly", "team:payments"],
    maintenanceId: null,
    startsAt: null,
    endsAt: null,
    managedBy: null,
    managedAt: null,
    revision: 3,
    createdBy: null,
    createdAt: "2026-11-30T10:00:00.000Z",
    updatedAt: "2026-11-30T10:00:00.000Z",
    nextFireAt: null,
    lastRun: null,
    counts24h: { late: 0, missed: 0, hollow: 0, failed: 0 },
    recentLateness: [],
    plannedThrough: null,
    deletedAt: null,
    teamId: "00000000-0000-4000-8000-000000000001",
    team: "default",
    workerPool: null,
  }) as ScheduleView;

const anchor = "2026-01-01T00:00:07.250Z";

describe("the edit form round-trips what it does not show", () => {
  it("keeps an interval's anchor in the trigger it previews and sends", () => {
    const form = formFromSchedule(saved({ kind: "interval", everySeconds: 60, anchor }));
    expect(triggerFromForm(form)).toEqual({ kind: "interval", everySeconds: 60, anchor });
    // Changing the interval keeps the grid's origin.
    expect(triggerFromForm({ ...form, everySeconds: "120" })).toEqual({ kind: "interval", everySeconds: 120, anchor });
  });

  it("an edit of the description alone sends the description alone", () => {
    for (const trigger of [
      { kind: "interval", everySeconds: 60, anchor },
      { kind: "interval", everySeconds: 60 },
      // A one-off with milliseconds: the datetime-local input shows whole seconds only.
      { kind: "once", at: "2027-03-01T09:00:00.500Z" },
      { kind: "cron", cron: "0 9 * * 1-5", timezone: "Europe/Berlin", dst: { gap: "skip", repeat: "twice" } },
    ] as ScheduleView["trigger"][]) {
      const initial = formFromSchedule(saved(trigger));
      expect(editBodyFromForm(initial, { ...initial, description: "after" })).toEqual({ description: "after" });
      expect(editBodyFromForm(initial, initial)).toEqual({});
    }
  });

  it("a changed trigger input sends the whole trigger; a new schedule sends every field", () => {
    const initial = formFromSchedule(saved({ kind: "interval", everySeconds: 60, anchor }));
    expect(editBodyFromForm(initial, { ...initial, everySeconds: "30" })).toEqual({
      trigger: { kind: "interval", everySeconds: 30, anchor },
    });
    expect(Object.keys(scheduleBodyFromForm(initial))).toContain("timeoutSeconds");
  });
});
