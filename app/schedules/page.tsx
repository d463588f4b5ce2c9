import { MaintenanceControl } from "@/components/schedules/maintenance-control";
import { NewScheduleLink } from "@/components/schedules/new-schedule-link";
import { SchedulesTable } from "@/components/schedules/schedules-table";
import { TagFilter } from "@/components/schedules/tag-filter";

export default async function SchedulesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { tag } = await searchParams;
  const tags = [...new Set((Array.isArray(tag) ? tag : tag ? [tag] : []).map((t) => t.trim().toLowerCase()).filter(Boolean))].sort();
  return (
    <section>
      <div className="row page-head">
        <h1>Schedules</h1>
        <span className="spacer" />
        <MaintenanceControl />
        <NewScheduleLink />
      </div>
      <p className="muted">
        What is supposed to run, when it runs next, and how the recent runs went. Times show the schedule&apos;s zone and yours.
      </p>
      <TagFilter tags={tags} />
      <SchedulesTable key={tags.join(",")} tags={tags} />
    </section>
  );
}
