// Splitting a 5- or 6-field cron expression into named fields, shared by validation, DST handling and descriptions.

export interface CronFields {
  second: string;
  minute: string;
  hour: string;
  dayOfMonth: string;
  month: string;
  dayOfWeek: string;
  hasSeconds: boolean;
}

export const FIELD_LABELS = {
  second: "seconds",
  minute: "minute",
  hour: "hour",
  dayOfMonth: "day-of-month",
  month: "month",
  dayOfWeek: "weekday",
} as const;

export type CronFieldName = keyof typeof FIELD_LABELS;

/** Allowed numeric values per field; weekday 7 is Sunday like 0, as in most crons. */
export const FIELD_RANGES: Record<CronFieldName, [number, number]> = {
  second: [0, 59],
  minute: [0, 59],
  hour: [0, 23],
  dayOfMonth: [1, 31],
  month: [1, 12],
  dayOfWeek: [0, 7],
};

const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/** The field with month and weekday names replaced by their numbers (JAN → 1, SUN → 0), upper-cased. */
export function withNumbersForNames(name: CronFieldName, field: string): string {
  const names = name === "month" ? MONTH_NAMES : name === "dayOfWeek" ? DAY_NAMES : null;
  const upper = field.toUpperCase();
  if (!names) return upper;
  const first = name === "month" ? 1 : 0;
  return upper.replace(/[A-Z]{3}/g, (n) => (names.includes(n) ? String(names.indexOf(n) + first) : n));
}

export function splitCronExpression(expr: string): string[] {
  const trimmed = expr.trim();
  return trimmed === "" ? [] : trimmed.split(/\s+/);
}

/** Named fields, or null unless there are exactly 5 or 6. */
export function parseCronFields(expr: string): CronFields | null {
  const parts = splitCronExpression(expr);
  if (parts.length === 5) {
    const [minute, hour, dayOfMonth, month, dayOfWeek] = parts as [string, string, string, string, string];
    return { second: "0", minute, hour, dayOfMonth, month, dayOfWeek, hasSeconds: false };
  }
  if (parts.length === 6) {
    const [second, minute, hour, dayOfMonth, month, dayOfWeek] = parts as [string, string, string, string, string, string];
    return { second, minute, hour, dayOfMonth, month, dayOfWeek, hasSeconds: true };
  }
  return null;
}

/**
 * A fixed-time expression names its times of day outright (`30 2 * * *`, `0 9,17 * * *`, `0 1-3 * * *`): no
 * wildcard or step in the seconds, minute or hour field. Only these follow the schedule's DST gap/repeat policy;
 * an expression that repeats within the day (`*\/15 * * * *`, `30 * * * *`) keeps its rhythm in elapsed time
 * instead, like Vixie cron and croner's "no-wildcard" rule.
 */
export function isFixedTimeCron(fields: CronFields): boolean {
  return [fields.second, fields.minute, fields.hour].every((f) => !/[*?/]/.test(f));
}
