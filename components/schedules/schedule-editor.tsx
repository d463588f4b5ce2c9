"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ScheduleForm } from "./schedule-form";
import { formFromSchedule } from "./schedule-form-values";
import { scheduleQuery } from "./schedules-queries";
import { formatInZone } from "../ui/time-format";
import { RequireCapability } from "../ui/use-can";

/**
 * Edit: the form starts from the schedule as loaded and is not refreshed underneath the operator's typing. Its query
 * has a key of its own, outside the live heads the change stream invalidates (components/ui/live-updates.ts): under
 * ["schedules", id], someone else's save refetched it, the new revision re-keyed the form, and the operator's edit
 * was replaced by theirs without the stale-revision warning. Only "Reload latest" (onReload) refetches it.
 * Editing follows the role in the schedule's team: a viewer there gets an explanation naming the team, no form.
 */
export function ScheduleEditor({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ["schedule-editor", id],
    queryFn: scheduleQuery(id).queryFn,
    refetchInterval: false,
    refetchOnWindowFocus: false,
    staleTime: Infinity,
    // Dropped when the editor closes, so the next edit starts from the schedule as it is then.
    gcTime: 0,
  });
  const [generation, setGeneration] = useState(0);
  if (q.isLoading) return <p className="muted">Loading schedule…</p>;
  if (q.error) return <p className="error">Could not load schedule: {q.error.message}</p>;
  const s = q.data!.schedule;
  return (
    <>
      <h1>Edit {s.name}</h1>
      <RequireCapability capability="operate" what="editing" team={{ id: s.teamId, name: s.team }}>
        {s.managedBy && (
          <div className="banner warn" role="note" data-testid="managed-warning">
            <strong>⚠ This schedule is managed by the schedules file {s.managedBy}</strong>
            {s.managedAt ? ` (last applied ${formatInZone(s.managedAt)})` : ""}. A change saved here is overwritten the next time that file
            is applied: change the file instead, or remove the schedule from it first.
          </div>
        )}
        <ScheduleForm
          key={`${s.revision}-${generation}`}
          mode="edit"
          initial={formFromSchedule(s)}
          scheduleId={s.id}
          revision={s.revision}
          onReload={async () => {
            await q.refetch();
            setGeneration((g) => g + 1);
          }}
        />
      </RequireCapability>
    </>
  );
}
