"use client";
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { EditDiff, type EditPreviewView } from "./edit-diff";
import { FirePreview } from "./fire-preview";
import { PayloadEditor } from "./payload-editor";
import { PolicyFields } from "./policy-fields";
import {
  DEFAULT_FORM,
  editBodyFromForm,
  scheduleBodyFromForm,
  tagsFromText,
  triggerFromForm,
  type ScheduleFormValues,
} from "./schedule-form-values";
import { TagList } from "./tag-list";
import { handlersQuery } from "./schedules-queries";
import { alertSettingsQuery } from "../alerts/alerts-queries";
import { TriggerBuilder } from "./trigger-builder";
import { ScheduleCalendarsFieldset } from "../calendars/schedule-calendars-fieldset";
import { RunAfterFieldset } from "./run-after-fieldset";
import { TeamSelect } from "../teams/team-select";

interface Props {
  mode: "create" | "edit";
  initial?: ScheduleFormValues;
  scheduleId?: string;
  revision?: number;
  /** Edit mode: fetch the latest version and reset the form to it (after a 409). */
  onReload?: () => Promise<void>;
}

/**
 * Create or edit a schedule. Client checks are hints; the server decides, and its per-field errors are shown
 * at their inputs. An edit carries the revision it started from: if someone saved in between, the server
 * answers 409 and the form says so instead of overwriting their change.
 */
export function ScheduleForm({ mode, initial, scheduleId, revision, onReload }: Props) {
  const router = useRouter();
  const qc = useQueryClient();
  const handlers = useQuery(handlersQuery());
  const alertSettings = useQuery(alertSettingsQuery());
  const [values, setValues] = useState<ScheduleFormValues>(initial ?? DEFAULT_FORM);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [previewErrors, setPreviewErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // Edit: the dry run of a change to the plan (trigger, dates, calendars), shown before the save is confirmed.
  const [editPreview, setEditPreview] = useState<EditPreviewView | null>(null);
  const bannerRef = useRef<HTMLDivElement>(null);
  // A refused save scrolls to the summary and focuses it, so keyboard and screen-reader users land on it too.
  useEffect(() => {
    if (formError || stale) {
      bannerRef.current?.scrollIntoView({ block: "start" });
      bannerRef.current?.focus();
    }
  }, [formError, stale]);

  const set = useCallback((patch: Partial<ScheduleFormValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    // A preview shown for other values no longer says what saving does.
    setEditPreview(null);
    // An edited field's old server error no longer applies.
    setServerErrors((e) => {
      const prefixes = Object.keys(patch).map((k) => ERROR_PREFIX_OF_INPUT[k] ?? k);
      return Object.fromEntries(Object.entries(e).filter(([k]) => !prefixes.some((p) => k === p || k.startsWith(`${p}.`))));
    });
  }, []);

  const onTeam = useCallback((team: string) => set({ team }), [set]);
  const trigger = useMemo(() => triggerFromForm(values), [values]);
  const errors = { ...previewErrors, ...serverErrors };
  const onPreviewErrors = useCallback((f: Record<string, string>) => setPreviewErrors(f), []);

  async function submit(e: FormEvent | null, confirmed = false) {
    e?.preventDefault();
    setSaving(true);
    setFormError(null);
    setStale(null);
    try {
      const editBody = mode === "edit" ? { ...editBodyFromForm(initial ?? DEFAULT_FORM, values), revision } : null;
      if (editBody && !confirmed && PLAN_FIELDS.some((f) => f in editBody)) {
        // A change to when it fires: show the old and new next fires and the superseded runs first.
        setEditPreview(
          await fetchJson<EditPreviewView>(`/api/schedules/${scheduleId}`, { method: "PATCH", json: { ...editBody, dryRun: true } }),
        );
        return;
      }
      const res =
        mode === "create"
          ? await fetchJson<{ schedule?: { id: string }; id?: string }>("/api/schedules", {
              method: "POST",
              json: scheduleBodyFromForm(values),
            })
          : await fetchJson<{ schedule?: { id: string }; id?: string }>(`/api/schedules/${scheduleId}`, {
              method: "PATCH",
              json: editBody,
            });
      const id = res.schedule?.id ?? res.id ?? scheduleId;
      await qc.invalidateQueries({ queryKey: ["schedules"] });
      await qc.invalidateQueries({ queryKey: ["timeline"] });
      router.push(`/schedules/${id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && mode === "edit") {
        setStale(err.message);
      } else if (err instanceof ApiError) {
        setServerErrors(err.fields ?? {});
        setFormError(err.message);
      } else {
        setFormError((err as Error).message);
      }
    } finally {
      setSaving(false);
    }
  }

  const handlerList = handlers.data?.handlers ?? [];

  return (
    <form onSubmit={submit} noValidate data-testid="schedule-form" className="schedule-form">
      <div ref={bannerRef} tabIndex={-1} className="banner-anchor">
        {stale && (
          <div className="banner warn" role="alert" data-testid="stale-banner">
            <strong>⚠ Someone else changed this schedule while you were editing.</strong>
            <div>{stale} Your changes were not saved and theirs were not overwritten.</div>
            <div className="row" style={{ marginTop: 8 }}>
              <button
                type="button"
                className="primary"
                onClick={async () => {
                  await onReload?.();
                  setStale(null);
                }}
                data-testid="reload-latest"
              >
                Reload the latest version
              </button>
              <span className="muted">This discards your unsaved edits.</span>
            </div>
          </div>
        )}
        {formError && (
          <div className="banner bad" role="alert" data-testid="form-error">
            <strong>✕ Not saved. {formError}</strong>
            {Object.keys(serverErrors).length > 0 && (
              <ul>
                {Object.entries(serverErrors).map(([k, v]) => (
                  <li key={k}>
                    {fieldLabel(k)}: {v}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <div className="form-columns">
        <div>
          <fieldset className="fieldset">
            <legend>Schedule</legend>
            <div className="grid-2">
              <FormField
                label="Name"
                testId="field-name"
                error={errors["name"]}
                hint="Unique; lowercase letters, digits and dashes, e.g. nightly-payouts."
              >
                <input value={values.name} onChange={(e) => set({ name: e.target.value })} autoComplete="off" required />
              </FormField>
              <FormField label="Description" error={errors["description"]} hint="Optional: what this is for, who to call.">
                <input value={values.description} onChange={(e) => set({ description: e.target.value })} autoComplete="off" />
              </FormField>
            </div>
            <TeamSelect
              value={values.team}
              onChange={onTeam}
              error={errors["team"]}
              purpose={mode === "create" ? "create" : "move"}
              currentTeamId={initial?.team}
              currentTeamName={initial?.teamName}
            />
            <FormField
              label="Tags"
              testId="field-tags"
              error={errors["tags"] ?? Object.entries(errors).find(([k]) => k.startsWith("tags."))?.[1]}
              hint="Comma-separated, lowercase, e.g. team:payments, nightly. Lists filter by tag; maintenance can pause every schedule with a tag."
            >
              <input value={values.tagsText} onChange={(e) => set({ tagsText: e.target.value })} autoComplete="off" />
            </FormField>
            {values.tagsText.trim() !== "" && <TagList tags={tagsFromText(values.tagsText)} />}
          </fieldset>
          {handlers.error && <p className="error">Could not load handlers: {handlers.error.message}</p>}
          <PayloadEditor
            handlers={handlerList}
            handler={values.handler}
            payloadText={values.payloadText}
            onHandler={(name, example) =>
              set({
                handler: name,
                ...(values.payloadText.trim() === "{}" || values.payloadText.trim() === "" ? { payloadText: example } : {}),
              })
            }
            onPayload={(t) => set({ payloadText: t })}
            errors={errors}
          />
          <TriggerBuilder values={values} set={set} errors={errors} />
          <fieldset className="fieldset" data-testid="dates-fieldset">
            <legend>Active between</legend>
            <div className="grid-2">
              <FormField
                label="Starts"
                testId="field-startsAt"
                error={errors["startsAt"]}
                hint="Optional: no fire before this (your time zone). Empty: fires from now on."
              >
                <input type="datetime-local" step="1" value={values.startsAt} onChange={(e) => set({ startsAt: e.target.value })} />
              </FormField>
              <FormField
                label="Ends"
                testId="field-endsAt"
                error={errors["endsAt"]}
                hint="Optional: no fire after this; the schedule then shows as ended. Empty: no end."
              >
                <input type="datetime-local" step="1" value={values.endsAt} onChange={(e) => set({ endsAt: e.target.value })} />
              </FormField>
            </div>
          </fieldset>
          <ScheduleCalendarsFieldset value={values.calendars} onChange={(calendars) => set({ calendars })} errors={errors} />
          <RunAfterFieldset
            value={values.after}
            onChange={(after) => set({ after })}
            waitDeadlineSeconds={values.waitDeadlineSeconds}
            onWaitDeadlineChange={(waitDeadlineSeconds) => set({ waitDeadlineSeconds })}
            selfName={initial?.name}
            errors={errors}
          />
          <PolicyFields values={values} set={set} errors={errors} failureAlertDefault={alertSettings.data?.failureAlertThreshold} />
        </div>
        <aside className="form-aside">
          <FirePreview trigger={trigger} onFieldErrors={onPreviewErrors} />
        </aside>
      </div>
      {editPreview && (
        <EditDiff
          preview={editPreview}
          timezone={values.triggerKind === "cron" ? values.timezone : undefined}
          saving={saving}
          onConfirm={() => void submit(null, true)}
          onBack={() => setEditPreview(null)}
        />
      )}
      <div className="row form-actions">
        <button type="submit" className="primary" disabled={saving || editPreview !== null} data-testid="save-schedule">
          {saving ? "Saving…" : mode === "create" ? "Create schedule" : "Save changes"}
        </button>
        <button type="button" onClick={() => router.back()}>
          Cancel
        </button>
        {mode === "edit" && <span className="muted">Editing revision {revision}.</span>}
      </div>
    </form>
  );
}

/** Body fields whose change re-plans the schedule (update-schedule.ts REPLAN_FIELDS): an edit of one is previewed first. */
const PLAN_FIELDS = ["trigger", "startsAt", "endsAt", "calendars"];

/** Which server error keys an input's edit makes obsolete. */
const ERROR_PREFIX_OF_INPUT: Record<string, string> = {
  payloadText: "payload",
  triggerKind: "trigger",
  cron: "trigger",
  timezone: "trigger",
  dstGap: "trigger",
  dstRepeat: "trigger",
  everySeconds: "trigger",
  onceAt: "trigger",
  tagsText: "tags",
};

const FIELD_LABELS: Record<string, string> = {
  name: "Name",
  description: "Description",
  handler: "Handler",
  payload: "Payload",
  "trigger.cron": "Cron expression",
  "trigger.timezone": "Time zone",
  "trigger.everySeconds": "Every (seconds)",
  "trigger.at": "At",
  "trigger.dst.gap": "DST gap policy",
  "trigger.dst.repeat": "DST repeat policy",
  trigger: "Trigger",
  overlapPolicy: "Overlap",
  misfirePolicy: "Misfire",
  catchUpLimit: "Catch-up limit",
  startingDeadlineSeconds: "Starting deadline",
  timeoutSeconds: "Timeout",
  graceSeconds: "Kill grace",
  retryMaxAttempts: "Max attempts",
  retryBaseSeconds: "Retry base delay",
  retryMaxSeconds: "Retry max delay",
  concurrencyGroup: "Concurrency group",
  concurrencyLimit: "Group limit",
  startJitterMs: "Start jitter",
  expectRecordsMin: "Expect at least N records",
  latenessP95SloMs: "Lateness p95 objective",
  latenessMaxMs: "Max lateness",
  completionDeadlineSeconds: "Completion deadline",
  failureAlertThreshold: "Failures before alerting",
  retentionDays: "Keep run history",
  webhookUrl: "Webhook URL",
  webhookFormat: "Webhook format",
  tags: "Tags",
  startsAt: "Starts",
  endsAt: "Ends",
  calendars: "Calendars",
  after: "Runs after",
  waitDeadlineSeconds: "Wait deadline",
};

/** The form's label for a server error key ("payload.amount" → "Payload field amount"). */
function fieldLabel(key: string): string {
  if (FIELD_LABELS[key]) return FIELD_LABELS[key];
  if (key.startsWith("payload.")) return `Payload field ${key.slice(8)}`;
  if (key.startsWith("tags.")) return `Tag ${Number(key.slice(5)) + 1}`;
  if (key.startsWith("calendars.")) return `Calendar ${Number(key.split(".")[1]) + 1}`;
  if (key.startsWith("after.")) return `Run after ${Number(key.split(".")[1]) + 1}`;
  return key;
}
