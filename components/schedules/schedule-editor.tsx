"use client";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ScheduleForm } from "./schedule-form";
import { formFromSchedule } from "./schedule-form-values";
import { scheduleQuery } from "./schedules-queries";
import { formatInZone } from "../ui/time-format";

/** Edit: the form starts from the schedule as loaded (not refreshed underneath the operator's typing). */
export function ScheduleEditor({ id }: { id: string }) {
  const q = useQuery({ ...scheduleQuery(id), refetchInterval: false, refetchOnWindowFocus: false, staleTime: Infinity });
  const [generation, setGeneration] = useState(0);
  if (q.isLoading) return <p className="muted">Loading schedule…</p>;
  if (q.error) return <p className="error">Could not load schedule: {q.error.message}</p>;
  const s = q.data!.schedule;
  return (
    <>
      <h1>Edit {s.name}</h1>
      {s.managedBy && (
        <div className="banner warn" role="note" data-testid="managed-warning">
          <strong>⚠ This schedule is managed by the schedules file {s.managedBy}</strong>
          {s.managedAt ? ` (last applied ${formatInZone(s.managedAt)})` : ""}. A change saved here is overwritten the next time that file is
          applied: change the file instead, or remove the schedule from it first.
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
    </>
  );
}
