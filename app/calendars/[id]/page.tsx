import { CalendarEditor } from "@/components/calendars/calendar-editor";

export default async function CalendarPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <section>
      <h1>Calendar</h1>
      <CalendarEditor id={id} />
    </section>
  );
}
