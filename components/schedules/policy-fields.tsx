"use client";
import { FormField } from "../ui/form-field";
import type { ScheduleFormValues } from "./schedule-form-values";

interface Props {
  values: ScheduleFormValues;
  set: (patch: Partial<ScheduleFormValues>) => void;
  errors: Record<string, string>;
  /** VIGIL_ALERT_FAILURE_THRESHOLD (GET /api/alerts/settings); undefined while loading. */
  failureAlertDefault?: number;
}

export const OVERLAP_POLICIES: Record<string, string> = {
  skip: "If a run of this schedule is still active, the new occurrence is recorded as skipped (default).",
  buffer_one: "Keep at most one occurrence waiting behind the active run; further ones are skipped.",
  allow: "Start regardless: runs of this schedule may overlap.",
  cancel_running: "Cancel the active run, then start the new one.",
};

export const MISFIRE_POLICIES: Record<string, string> = {
  skip: "After downtime or a pause, occurrences that were missed are not run.",
  run_once: "Missed occurrences are coalesced into one run (default).",
  catch_up: "Each missed occurrence is run, up to the catch-up limit.",
};

function NumberField(props: {
  label: string;
  field: Exclude<keyof ScheduleFormValues, "calendars" | "after">;
  hint: string;
  values: ScheduleFormValues;
  set: Props["set"];
  errors: Record<string, string>;
  placeholder?: string;
}) {
  const { label, field, hint, values, set, errors, placeholder } = props;
  return (
    <FormField label={label} hint={hint} error={errors[field]} testId={`field-${field}`}>
      <input
        type="number"
        inputMode="numeric"
        value={values[field]}
        placeholder={placeholder}
        onChange={(e) => set({ [field]: e.target.value } as Partial<ScheduleFormValues>)}
      />
    </FormField>
  );
}

/** Every policy of a schedule, each with one line saying what it does. */
/** What an empty "Failures before alerting" means, as its placeholder says it. */
export function failureDefaultText(n: number | undefined): string {
  if (n === undefined) return "default";
  return n === 0 ? "default: off" : `default: ${n}`;
}

export function PolicyFields({ values, set, errors, failureAlertDefault }: Props) {
  const common = { values, set, errors };
  const failureDefault =
    failureAlertDefault === undefined
      ? "the global default (VIGIL_ALERT_FAILURE_THRESHOLD)"
      : failureAlertDefault === 0
        ? "the global default, which is off (VIGIL_ALERT_FAILURE_THRESHOLD=0)"
        : `the global default, ${failureAlertDefault} (VIGIL_ALERT_FAILURE_THRESHOLD)`;
  return (
    <fieldset className="fieldset" data-testid="policy-fields">
      <legend>Policies</legend>
      <div className="grid-2">
        <FormField label="Overlap" hint={OVERLAP_POLICIES[values.overlapPolicy]} error={errors["overlapPolicy"]}>
          <select value={values.overlapPolicy} onChange={(e) => set({ overlapPolicy: e.target.value })}>
            {Object.keys(OVERLAP_POLICIES).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </FormField>
        <FormField
          label="Misfire (after downtime or a pause)"
          hint={MISFIRE_POLICIES[values.misfirePolicy]}
          error={errors["misfirePolicy"]}
        >
          <select value={values.misfirePolicy} onChange={(e) => set({ misfirePolicy: e.target.value })}>
            {Object.keys(MISFIRE_POLICIES).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </FormField>
      </div>
      <div className="grid-3">
        <NumberField
          {...common}
          label="Catch-up limit"
          field="catchUpLimit"
          hint="With catch_up: the most missed occurrences run after an outage."
        />
        <NumberField
          {...common}
          label="Starting deadline (s)"
          field="startingDeadlineSeconds"
          hint="A run not started this long after it was due is marked missed."
        />
        <NumberField
          {...common}
          label="Start jitter (ms)"
          field="startJitterMs"
          hint="Random delay up to this, so many schedules due at once spread out."
        />
        <NumberField {...common} label="Timeout (s)" field="timeoutSeconds" hint="An attempt running longer is aborted, then killed." />
        <NumberField {...common} label="Kill grace (s)" field="graceSeconds" hint="Time between the abort signal and the hard kill." />
        <NumberField
          {...common}
          label="Max attempts"
          field="retryMaxAttempts"
          hint="1 = no retries. Retries back off exponentially with full jitter."
        />
        <NumberField
          {...common}
          label="Retry base delay (s)"
          field="retryBaseSeconds"
          hint="First retry waits up to this; it doubles each attempt."
        />
        <NumberField {...common} label="Retry max delay (s)" field="retryMaxSeconds" hint="Cap on the backoff between attempts." />
        <NumberField
          {...common}
          label="Expect at least N records"
          field="expectRecordsMin"
          placeholder="no expectation"
          hint="A success reporting fewer records is marked hollow, not green."
        />
      </div>
      <div className="grid-2">
        <FormField
          label="Concurrency group"
          hint="Schedules sharing a group share its limit of simultaneous runs across all workers. Empty = none."
          error={errors["concurrencyGroup"]}
        >
          <input
            value={values.concurrencyGroup}
            onChange={(e) => set({ concurrencyGroup: e.target.value })}
            placeholder="e.g. ledger"
            autoComplete="off"
          />
        </FormField>
        <NumberField
          {...common}
          label="Group limit (runs at once)"
          field="concurrencyLimit"
          placeholder="keep the group's limit"
          hint="Sets the limit for the whole group, for every schedule in it."
        />
      </div>
      <div className="grid-2">
        <FormField
          label="Group start rate: at most N starts"
          hint="Start-rate limit of the whole group across all workers (e.g. 10 starts per 1 s for a bank API). Empty = none."
          error={errors["startRateLimit.maxStarts"] ?? errors["startRateLimit"]}
          testId="field-startRateMax"
        >
          <input
            type="number"
            inputMode="numeric"
            value={values.startRateMax}
            placeholder="no rate limit"
            disabled={values.concurrencyGroup.trim() === ""}
            onChange={(e) => set({ startRateMax: e.target.value })}
          />
        </FormField>
        <FormField
          label="…per seconds"
          hint="The sliding window: no window this long ever holds more starts. Held-back runs wait, then start in order."
          error={errors["startRateLimit.perSeconds"]}
          testId="field-startRatePer"
        >
          <input
            type="number"
            inputMode="numeric"
            value={values.startRatePer}
            placeholder="e.g. 1"
            disabled={values.concurrencyGroup.trim() === ""}
            onChange={(e) => set({ startRatePer: e.target.value })}
          />
        </FormField>
      </div>
      <h4 className="subhead">Alerts</h4>
      <div className="grid-3">
        <NumberField
          {...common}
          label="Lateness p95 objective (ms)"
          field="latenessP95SloMs"
          placeholder="none"
          hint="Alert when the 95th percentile of start lateness exceeds this."
        />
        <NumberField
          {...common}
          label="Max lateness (ms)"
          field="latenessMaxMs"
          placeholder="none"
          hint="Alert on any single run starting later than this."
        />
        <NumberField
          {...common}
          label="Completion deadline (s)"
          field="completionDeadlineSeconds"
          placeholder="none"
          hint="Alert when a run has not finished this long after it was planned."
        />
        <NumberField
          {...common}
          label="Failures before alerting"
          field="failureAlertThreshold"
          placeholder={failureDefaultText(failureAlertDefault)}
          hint={`Alert after this many consecutive failed, timed-out or zombie runs; a success ends the streak. Empty = ${failureDefault}; 0 = never alert on this schedule's failures.`}
        />
        <NumberField
          {...common}
          label="Keep run history (days)"
          field="retentionDays"
          placeholder="global"
          hint="How long finished runs, their events and attempts are kept. Empty = the global setting (Workers page)."
        />
      </div>
      <div className="grid-2">
        <FormField
          label="Webhook URL"
          hint="Alerts for this schedule are also POSTed here. Empty = the global webhook only."
          error={errors["webhookUrl"]}
        >
          <input
            value={values.webhookUrl}
            onChange={(e) => set({ webhookUrl: e.target.value })}
            placeholder="https://hooks.example.com/vigil"
            autoComplete="off"
          />
        </FormField>
        <FormField
          label="Webhook format"
          hint="Slack-style: a text message chat tools show (Slack, Mattermost, …). Vigil JSON: for your own receiver."
          error={errors["webhookFormat"]}
        >
          <select
            value={values.webhookFormat}
            onChange={(e) => set({ webhookFormat: e.target.value as "vigil" | "slack" })}
            data-testid="webhook-format"
          >
            <option value="vigil">Vigil JSON</option>
            <option value="slack">Slack-style text</option>
          </select>
        </FormField>
      </div>
    </fieldset>
  );
}
