"use client";
// Create or edit a calendar. Saving an edit first asks the server what it would change (a dry run: the schedules whose
// next fires move, old vs new) and shows it; the operator then confirms. An .ics file is read by the server (the
// import's dry run) and its dates and ranges are added to the form, to be reviewed before saving.
import { useMemo, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fetchJson } from "../ui/fetch-json";
import { FormField } from "../ui/form-field";
import { teamRoleRefusal, useCan } from "../ui/use-can";
import { meQuery } from "../ui/me-query";
import { CalendarChangePreview } from "./calendar-change-preview";
import {
  calendarBodyFromForm,
  DEFAULT_CALENDAR_FORM,
  formFromCalendar,
  mergeImported,
  type CalendarFormValues,
} from "./calendar-form-values";
import { CalendarRuleFields } from "./calendar-rule-fields";
import { TeamSelect } from "../teams/team-select";
import { calendarQuery, type CalendarImportView, type CalendarSaveView, type CalendarView } from "./calendars-queries";
import Link from "next/link";

export function CalendarEditor({ id }: { id?: string }) {
  const q = useQuery({ ...calendarQuery(id ?? ""), enabled: Boolean(id) });
  // The notice lives here: a save bumps the revision, which remounts the form with the stored calendar.
  const [notice, setNotice] = useState<string | null>(null);
  if (!id) return <CalendarForm notice={notice} setNotice={setNotice} />;
  if (q.isPending) return <p className="muted">Loading calendar…</p>;
  if (q.error) return <p className="error">Could not load the calendar: {q.error.message}</p>;
  return <CalendarForm key={q.data.calendar.revision} calendar={q.data.calendar} notice={notice} setNotice={setNotice} />;
}

function CalendarForm({
  calendar,
  notice,
  setNotice,
}: {
  calendar?: CalendarView;
  notice: string | null;
  setNotice: (notice: string | null) => void;
}) {
  const router = useRouter();
  const qc = useQueryClient();
  // A calendar another team shares with the caller's is read-only here: only its own team's operators change it.
  const canEdit = useCan("operate", calendar?.teamId);
  const [values, setValues] = useState<CalendarFormValues>(calendar ? formFromCalendar(calendar) : DEFAULT_CALENDAR_FORM);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<{ body: string; result: CalendarSaveView } | null>(null);
  const body = useMemo(() => calendarBodyFromForm(values), [values]);
  const bodyKey = JSON.stringify(body);
  const previewCurrent = preview?.body === bodyKey;

  const set = (patch: Partial<CalendarFormValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    setErrors({});
  };
  const onTeam = (team: string) => set({ team });

  function fail(err: unknown) {
    if (err instanceof ApiError) {
      setErrors(err.fields ?? {});
      setFormError(err.message);
    } else setFormError((err as Error).message);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setFormError(null);
    try {
      if (!calendar) {
        const res = await fetchJson<CalendarSaveView>("/api/calendars", { method: "POST", json: body });
        await qc.invalidateQueries({ queryKey: ["calendars"] });
        router.push(`/calendars/${res.calendar.id}`);
        return;
      }
      const url = `/api/calendars/${calendar.id}`;
      if (!previewCurrent) {
        // First what the save would change; the operator confirms with a second press.
        const result = await fetchJson<CalendarSaveView>(url, {
          method: "PUT",
          json: { ...body, revision: calendar.revision, dryRun: true },
        });
        setPreview({ body: bodyKey, result });
        return;
      }
      const saved = await fetchJson<CalendarSaveView>(url, { method: "PUT", json: { ...body, revision: calendar.revision } });
      setNotice(
        `Saved revision ${saved.calendar.revision}.${saved.cancelledRuns > 0 ? ` ${saved.cancelledRuns} planned runs no longer fire and were cancelled.` : ""}`,
      );
      setPreview(null);
      await qc.invalidateQueries({ queryKey: ["calendars"] });
      await qc.invalidateQueries({ queryKey: ["schedules"] });
      await qc.invalidateQueries({ queryKey: ["timeline"] });
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  async function importFile(file: File) {
    setFormError(null);
    setNotice(null);
    try {
      const ics = await file.text();
      // The import's dry run reads the file on the server and stores nothing; its name only has to be free.
      const res = await fetchJson<CalendarImportView>("/api/calendars/import", {
        method: "POST",
        json: { name: `import preview ${crypto.randomUUID()}`, timezone: values.timezone || "UTC", ics, dryRun: true },
      });
      setValues((v) => mergeImported(v, res.calendar.dates, res.calendar.ranges));
      setNotice(
        `Read ${res.imported.events} events from ${file.name}: ${res.imported.dates} blocked dates and ${res.imported.ranges} ranges added below${res.imported.skipped > 0 ? ` (${res.imported.skipped} past or cancelled events left out)` : ""}. Review them, then save.`,
      );
    } catch (err) {
      fail(err);
    }
  }

  async function remove() {
    if (!calendar || !window.confirm(`Delete calendar "${calendar.name}"?`)) return;
    try {
      await fetchJson(`/api/calendars/${calendar.id}`, { method: "DELETE" });
      await qc.invalidateQueries({ queryKey: ["calendars"] });
      router.push("/calendars");
    } catch (err) {
      fail(err);
    }
  }

  const saveLabel = !calendar ? "Create calendar" : previewCurrent ? "Confirm and save" : "Review changes";
  return (
    <form onSubmit={submit} noValidate data-testid="calendar-form">
      {formError && (
        <div className="banner bad" role="alert" data-testid="form-error">
          <strong>✕ Not saved. {formError}</strong>
          {Object.keys(errors).length > 1 && (
            <ul>
              {Object.entries(errors).map(([k, v]) => (
                <li key={k}>
                  {k}: {v}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {calendar && <CalendarTeamLine calendar={calendar} canEdit={canEdit} />}
      {notice && (
        <div className="banner ok" role="status" data-testid="calendar-notice">
          {notice}
        </div>
      )}
      <div className="form-columns">
        <fieldset disabled={!canEdit} className="plain-fieldset" data-testid="calendar-fields">
          <fieldset className="fieldset">
            <legend>Calendar</legend>
            <div className="grid-2">
              <FormField
                label="Name"
                testId="calendar-name"
                error={errors["name"]}
                hint="Schedules refer to it by this name, e.g. Holidays DE."
              >
                <input value={values.name} onChange={(e) => set({ name: e.target.value })} autoComplete="off" required />
              </FormField>
              <FormField
                label="Time zone"
                testId="calendar-timezone"
                error={errors["timezone"]}
                hint="IANA name; dates, weekdays and windows are read in it (e.g. Europe/Berlin)."
              >
                <input value={values.timezone} onChange={(e) => set({ timezone: e.target.value })} autoComplete="off" />
              </FormField>
            </div>
            {!calendar && <TeamSelect value={values.team} onChange={onTeam} error={errors["team"]} purpose="create" />}
            <FormField label="Description" error={errors["description"]} hint="Optional: what it blocks and who keeps it.">
              <input value={values.description} onChange={(e) => set({ description: e.target.value })} autoComplete="off" />
            </FormField>
            <FormField
              label="Import an .ics file"
              testId="calendar-ics"
              hint="All-day events become blocked dates, timed events ranges; recurring events are expanded two years ahead."
            >
              <input type="file" accept=".ics,text/calendar" onChange={(e) => e.target.files?.[0] && importFile(e.target.files[0])} />
            </FormField>
          </fieldset>
          <CalendarRuleFields values={values} set={set} errors={errors} />
        </fieldset>
        <aside className="form-aside">
          {calendar && (
            <section className="card">
              <h3 style={{ marginTop: 0 }}>Followed by</h3>
              {calendar.schedules.length === 0 ? (
                <p className="muted">No schedule yet. Pick this calendar in a schedule&apos;s form.</p>
              ) : (
                <ul>
                  {calendar.schedules.map((s) => (
                    <li key={s.id}>
                      <Link href={`/schedules/${s.id}`}>{s.name}</Link> <span className="muted">({s.policy})</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          {preview && previewCurrent && <CalendarChangePreview effects={preview.result.effects} zone={values.timezone} />}
        </aside>
      </div>
      {canEdit && (
        <div className="row form-actions">
          <button type="submit" className="primary" disabled={busy} data-testid="save-calendar">
            {busy ? "Working…" : saveLabel}
          </button>
          <button type="button" onClick={() => router.push("/calendars")}>
            {calendar ? "Back" : "Cancel"}
          </button>
          {calendar && (
            <>
              <span className="muted">Editing revision {calendar.revision}.</span>
              <span className="spacer" />
              <button type="button" className="danger" onClick={remove} data-testid="delete-calendar">
                Delete
              </button>
            </>
          )}
        </div>
      )}
    </form>
  );
}

/** Its team, and whom the team shares it with; for a caller who cannot change it (another team's calendar shared with
 * theirs, or a viewer), that it is read-only. */
function CalendarTeamLine({ calendar, canEdit }: { calendar: CalendarView; canEdit: boolean }) {
  const { data: me } = useQuery(meQuery());
  // A member of the calendar's team hears which role editing needs; anyone else sees it because it is shared.
  const member = me?.actor.teams.some((t) => t.id === calendar.teamId) ?? false;
  const refusal = member
    ? teamRoleRefusal(me, "operate", { id: calendar.teamId, name: calendar.team }, "editing")
    : `team ${calendar.team} shares it with yours; only its operators change it.`;
  const shared = calendar.sharedWith.map((s) => s.team ?? "every team");
  return (
    <p className="muted" data-testid="calendar-team">
      Team <strong>{calendar.team}</strong>
      {shared.length > 0 && <span data-testid="calendar-shared-with"> · Shared with {shared.join(", ")}</span>}
      {!canEdit && <span data-testid="calendar-read-only"> · read-only for you{refusal ? `: ${refusal}` : ""}</span>}
    </p>
  );
}
