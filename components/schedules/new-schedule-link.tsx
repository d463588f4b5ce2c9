"use client";
import Link from "next/link";
import { useCan } from "../ui/use-can";

/** "+ New schedule" for those who may create one (operators and admins). */
export function NewScheduleLink() {
  const canOperate = useCan("operate");
  if (!canOperate) return null;
  return (
    <Link href="/schedules/new" className="button primary-link" data-testid="new-schedule">
      + New schedule
    </Link>
  );
}
