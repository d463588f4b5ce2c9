"use client";
import Link from "next/link";
import { useCan } from "../ui/use-can";

/** "+ New calendar" for those who may create one (operators and admins). */
export function NewCalendarLink() {
  const canOperate = useCan("operate");
  if (!canOperate) return null;
  return (
    <Link href="/calendars/new" className="button primary-link" data-testid="new-calendar">
      + New calendar
    </Link>
  );
}
