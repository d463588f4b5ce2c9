import { Cron } from "croner";
import { FIELD_LABELS, FIELD_RANGES, parseCronFields, splitCronExpression, withNumbersForNames, type CronFieldName } from "./cron-fields";

// The message a person needs to fix a cron expression, or null when it is valid and can fire. Ranges are checked
// here rather than through croner's messages, two of which are off by one ("0 0 32 * *" reports day 31).

const MONTH_WORDS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const MAX_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// Any expression that fires at all fires within 28 years (the weekday/leap-year cycle, e.g. a fifth Friday in
// February); the search starts from a fixed date so validation never reads the clock.
const SEARCH_FROM = new Date(Date.UTC(2024, 0, 1));
const SEARCH_UNTIL = new Date(Date.UTC(2054, 0, 1));

export function explainCronProblem(expr: string): string | null {
  const parts = splitCronExpression(expr);
  if (parts.length === 1 && parts[0]?.startsWith("@")) {
    return `Cron nicknames such as ${parts[0]} are not supported; write the fields out, e.g. "0 0 * * *" for daily`;
  }
  const fields = parseCronFields(expr);
  if (!fields) {
    return `Cron expression must have 5 fields (minute hour day month weekday) or 6 (with leading seconds); got ${parts.length}`;
  }
  const names: CronFieldName[] = ["second", "minute", "hour", "dayOfMonth", "month", "dayOfWeek"];
  for (const name of names) {
    const problem = explainFieldProblem(name, fields[name]);
    if (problem) {
      const yearHint =
        fields.hasSeconds && name === "dayOfWeek" && /\d{3,}/.test(fields.dayOfWeek)
          ? " (with 6 fields the first is seconds; a year field is not supported)"
          : "";
      return problem + yearHint;
    }
  }
  let cron: Cron;
  try {
    cron = new Cron(expr, { utcOffset: 0, paused: true, mode: "5-or-6-parts", stopAt: SEARCH_UNTIL });
  } catch (err) {
    return rephraseCronerError(err instanceof Error ? err.message : String(err));
  }
  if (/^[*?]$/.test(fields.dayOfWeek)) {
    const impossible = explainImpossibleDate(fields.dayOfMonth, fields.month);
    if (impossible) return `Cron expression "${expr.trim()}" never fires: ${impossible}`;
  }
  if (cron.nextRun(SEARCH_FROM) === null) {
    return `Cron expression "${expr.trim()}" never fires: no date matches its day-of-month, month and weekday fields together`;
  }
  return null;
}

function explainFieldProblem(name: CronFieldName, field: string): string | null {
  const label = FIELD_LABELS[name];
  const [min, max] = FIELD_RANGES[name];
  for (const rawItem of field.split(",")) {
    if (rawItem === "") return `The ${label} field "${field}" has an empty entry (a doubled or trailing comma)`;
    const item = withNumbersForNames(name, rawItem);
    const [base = "", step, extra] = item.split("/");
    if (extra !== undefined) return `The ${label} field entry "${rawItem}" has more than one "/"`;
    if (step !== undefined) {
      if (!/^\d+$/.test(step)) return `The ${label} field entry "${rawItem}" needs a whole number after "/", e.g. */15`;
      if (Number(step) === 0) return `The ${label} field entry "${rawItem}" has a step of 0, which never advances; use 1 or more`;
      if (Number(step) > max - min + 1) {
        return `The ${label} field entry "${rawItem}" steps by ${step}, more than the field's whole range ${min}–${max}`;
      }
      if (!/^(\*|\d+-\d+)$/.test(base)) {
        return `The ${label} field entry "${rawItem}" must step from * or a range, as in */${step} or ${min}-${max}/${step}`;
      }
    }
    const range = /^(\d+)-(\d+)$/.exec(base);
    if (range && Number(range[1]) > Number(range[2])) {
      return `The ${label} range "${rawItem}" runs backwards; write the smaller value first, e.g. ${range[2]}-${range[1]}`;
    }
    for (const digits of base.replace(/#\d+/, "").match(/\d+/g) ?? []) {
      const n = Number(digits);
      if (n < min || n > max) return `The ${label} value ${n} is out of range; use ${min}–${max}`;
    }
  }
  return null;
}

function rephraseCronerError(message: string): string {
  const entry = /entry (\S+) \(([^)]*)\)/.exec(message);
  const where = entry ? ` in "${entry[2]}"` : "";
  if (/illegal characters/.test(message)) return `The cron expression has characters cron does not understand${where}`;
  if (/nth|#/.test(message)) return 'Use "#" only in the weekday field, as in FRI#2 (the second Friday; 1–5)';
  if (/\bW\b|weekday modifier/.test(message)) {
    return 'Use "W" (nearest weekday) only with a single day of month, as in 15W';
  }
  if (/\bL\b/.test(message)) return 'Use "L" alone in the day-of-month field (last day) or after a weekday, as in 5L';
  if (/stepping|steps/.test(message)) return "Write steps as */n or a-b/n, e.g. */15 or 0-30/5";
  if (/range/.test(message)) return "A range in the cron expression is not valid; write it as a-b with a ≤ b";
  return `The cron expression is not valid (${message.replace(/^CronPattern:\s*/, "")})`;
}

function expandField(field: string, min: number, max: number, name: CronFieldName): number[] | null {
  const values = new Set<number>();
  for (const rawItem of field.split(",")) {
    const item = withNumbersForNames(name, rawItem);
    const match = /^(?:(\*|\?)|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (!match) return null;
    const from = match[1] ? min : Number(match[2]);
    const to = match[1] ? max : match[3] !== undefined ? Number(match[3]) : match[4] ? max : from;
    const step = match[4] ? Number(match[4]) : 1;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return [...values];
}

/** Why no day-of-month in the expression exists in any of its months, for the common case without L/W. */
function explainImpossibleDate(dayField: string, monthField: string): string | null {
  const days = expandField(dayField, 1, 31, "dayOfMonth");
  const months = expandField(monthField, 1, 12, "month");
  if (!days || !months || days.length === 0 || months.length === 0) return null;
  if (months.some((m) => days.some((d) => d <= (MAX_DAYS[m - 1] ?? 31)))) return null;
  const dayList = days.length === 1 ? `day ${days[0]}` : `days ${days.join(", ")}`;
  const monthWords = months.map((m) => MONTH_WORDS[m - 1]);
  return monthWords.length === 1 ? `${monthWords[0]} never has ${dayList}` : `none of ${monthWords.join(", ")} has ${dayList}`;
}
