"use client";
import { useMemo } from "react";
import { FormField } from "../ui/form-field";
import type { ScheduleFormValues, TriggerKind } from "./schedule-form-values";

export const CRON_PRESETS: { label: string; cron: string }[] = [
  { label: "Every 10 s", cron: "*/10 * * * * *" },
  { label: "Every minute", cron: "* * * * *" },
  { label: "Every 5 min", cron: "*/5 * * * *" },
  { label: "Every 15 min", cron: "*/15 * * * *" },
  { label: "Hourly", cron: "0 * * * *" },
  { label: "Daily 02:00", cron: "0 2 * * *" },
  { label: "Weekdays 09:00", cron: "0 9 * * 1-5" },
  { label: "Monthly, 1st 00:00", cron: "0 0 1 * *" },
];

const KINDS: { kind: TriggerKind; label: string; hint: string }[] = [
  { kind: "cron", label: "Cron", hint: "Calendar times in a time zone (5 fields, or 6 with seconds first)." },
  { kind: "interval", label: "Interval", hint: "A fixed number of seconds between fires, counted from the schedule's creation." },
  { kind: "once", label: "One-off", hint: "Fires once at a given instant." },
];

interface Props {
  values: ScheduleFormValues;
  set: (patch: Partial<ScheduleFormValues>) => void;
  errors: Record<string, string>;
}

function zones(): string[] {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}

/** Cron text with presets, an interval, or a one-off instant; the DST policies appear for cron only. */
export function TriggerBuilder({ values, set, errors }: Props) {
  const zoneList = useMemo(zones, []);
  const triggerError = errors["trigger"] ?? errors["trigger.kind"];
  return (
    <fieldset className="fieldset" data-testid="trigger-builder">
      <legend>When it runs</legend>
      <div className="segmented" role="radiogroup" aria-label="Trigger kind">
        {KINDS.map((k) => (
          <label key={k.kind} className={values.triggerKind === k.kind ? "active" : ""}>
            <input
              type="radio"
              name="triggerKind"
              value={k.kind}
              checked={values.triggerKind === k.kind}
              onChange={() => set({ triggerKind: k.kind })}
            />
            {k.label}
          </label>
        ))}
      </div>
      <p className="hint muted">{KINDS.find((k) => k.kind === values.triggerKind)?.hint}</p>
      {triggerError && (
        <p className="field-error" role="alert">
          {triggerError}
        </p>
      )}

      {values.triggerKind === "cron" && (
        <>
          <div className="row presets" aria-label="Cron presets">
            {CRON_PRESETS.map((p) => (
              <button
                type="button"
                key={p.cron}
                className={`chip ${values.cron === p.cron ? "active" : ""}`}
                aria-pressed={values.cron === p.cron}
                onClick={() => set({ cron: p.cron })}
              >
                {p.label}
              </button>
            ))}
          </div>
          <div className="grid-2">
            <FormField
              label="Cron expression"
              testId="field-cron"
              error={errors["trigger.cron"]}
              hint={
                <>
                  minute hour day-of-month month day-of-week — e.g. <code>*/15 9-17 * * 1-5</code>; prepend a seconds field for sub-minute.
                </>
              }
            >
              <input
                className="mono"
                value={values.cron}
                onChange={(e) => set({ cron: e.target.value })}
                spellCheck={false}
                autoComplete="off"
              />
            </FormField>
            <FormField
              label="Time zone"
              testId="field-timezone"
              error={errors["trigger.timezone"] ?? errors["timezone"]}
              hint="IANA name; the cron fields are read as wall-clock time in this zone."
            >
              <input list="vigil-zones" value={values.timezone} onChange={(e) => set({ timezone: e.target.value })} autoComplete="off" />
            </FormField>
          </div>
          <datalist id="vigil-zones">
            {zoneList.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <div className="grid-2">
            <FormField
              label="If the time does not exist (DST jumps forward)"
              error={errors["trigger.dst.gap"]}
              hint="shift: run at the first valid time after the gap; skip: do not run that day."
            >
              <select value={values.dstGap} onChange={(e) => set({ dstGap: e.target.value as "shift" | "skip" })}>
                <option value="shift">shift — run right after the gap</option>
                <option value="skip">skip — no run that day</option>
              </select>
            </FormField>
            <FormField
              label="If the time happens twice (DST falls back)"
              error={errors["trigger.dst.repeat"]}
              hint="once: the first occurrence only; twice: both."
            >
              <select value={values.dstRepeat} onChange={(e) => set({ dstRepeat: e.target.value as "once" | "twice" })}>
                <option value="once">once — first occurrence only</option>
                <option value="twice">twice — both occurrences</option>
              </select>
            </FormField>
          </div>
        </>
      )}

      {values.triggerKind === "interval" && (
        <FormField
          label="Every (seconds)"
          testId="field-every"
          error={errors["trigger.everySeconds"]}
          hint={
            values.intervalAnchor
              ? `1 second to 31 days. Counted from its anchor, ${values.intervalAnchor} (kept).`
              : "1 second to 31 days. 3600 = hourly."
          }
        >
          <input type="number" min={1} value={values.everySeconds} onChange={(e) => set({ everySeconds: e.target.value })} />
        </FormField>
      )}

      {values.triggerKind === "once" && (
        <FormField
          label="At (your local time)"
          testId="field-once"
          error={errors["trigger.at"]}
          hint={`Read in your zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}) and sent as UTC.`}
        >
          <input type="datetime-local" step={1} value={values.onceAt} onChange={(e) => set({ onceAt: e.target.value })} />
        </FormField>
      )}
    </fieldset>
  );
}
