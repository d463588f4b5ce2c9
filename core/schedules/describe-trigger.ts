import { isFixedTimeCron, parseCronFields, withNumbersForNames, type CronFields } from "./cron-fields";
import type { CronTrigger, Trigger } from "./trigger";

// Plain-words summaries for the console. Common cron shapes get a sentence; anything else is shown as the
// expression itself rather than a half-right paraphrase.

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export function describeTrigger(trigger: Trigger): string {
  switch (trigger.kind) {
    case "interval": {
      const every = describeEvery(trigger.everySeconds);
      return trigger.anchor ? `${every}, counted from ${formatUtc(trigger.anchor)}` : every;
    }
    case "once":
      return `once at ${formatUtc(trigger.at)}`;
    case "cron":
      return describeCronTrigger(trigger);
  }
}

function describeCronTrigger(trigger: CronTrigger): string {
  const fields = parseCronFields(trigger.cron);
  const sentence = fields ? describeCron(fields) : null;
  if (!fields || !sentence) return `cron \`${trigger.cron.trim()}\` (${trigger.timezone})`;
  const policies: string[] = [];
  if (isFixedTimeCron(fields) && trigger.dst.gap === "skip") policies.push("skipped when DST jumps over it");
  if (isFixedTimeCron(fields) && trigger.dst.repeat === "twice") policies.push("twice when DST repeats it");
  return `${sentence} (${trigger.timezone})${policies.length ? `; ${policies.join(", ")}` : ""}`;
}

/** "every 30 seconds", "every minute", "every 90 minutes", "every 2 hours", "every day". */
function describeEvery(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, unit] of units) {
    if (seconds % size === 0) {
      const n = seconds / size;
      return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
    }
  }
  return `every ${seconds} seconds`;
}

/** "2026-12-01 09:00 UTC" from any ISO instant. */
function formatUtc(iso: string): string {
  const text = new Date(iso).toISOString();
  const seconds = text.slice(17, 19);
  return `${text.slice(0, 10)} ${text.slice(11, 16)}${seconds === "00" ? "" : `:${seconds}`} UTC`;
}

const isAny = (f: string) => f === "*" || f === "?";
const numbers = (f: string): number[] | null => (/^\d+(,\d+)*$/.test(f) ? f.split(",").map(Number) : null);
const stepOf = (f: string): number | null => (/^\*\/\d+$/.test(f) ? Number(f.slice(2)) : null);
const two = (n: number) => String(n).padStart(2, "0");

function describeCron(fields: CronFields): string | null {
  const days = describeDays(fields);
  if (!days) return null;
  const [second, minute, hour] = [fields.second, fields.minute, fields.hour];
  const qualified = (freq: string) => (days.qualifier ? `${freq} ${days.qualifier}` : freq);

  if (isAny(minute) && isAny(hour)) {
    if (isAny(second)) return qualified("every second");
    const secondStep = stepOf(second);
    if (secondStep) return qualified(describeEvery(secondStep));
    return second === "0" ? qualified("every minute") : null;
  }
  if (second !== "0") {
    const [s, m, h] = [numbers(second), numbers(minute), numbers(hour)];
    return s?.length === 1 && m?.length === 1 && h?.length === 1 ? `at ${two(h[0]!)}:${two(m[0]!)}:${two(s[0]!)} ${days.daily}` : null;
  }
  const minuteStep = stepOf(minute);
  const hourRange = /^(\d+)-(\d+)$/.exec(hour);
  if (minuteStep && isAny(hour)) return qualified(describeEvery(minuteStep * 60));
  if (minuteStep && hourRange) {
    const lastMinute = Math.floor(59 / minuteStep) * minuteStep;
    const span = `from ${two(Number(hourRange[1]))}:00 to ${two(Number(hourRange[2]))}:${two(lastMinute)}`;
    return qualified(`${describeEvery(minuteStep * 60)} ${span}`);
  }
  const minutes = numbers(minute);
  if (minutes?.length !== 1) return null;
  const m = minutes[0]!;
  const hourStep = stepOf(hour);
  if (isAny(hour) || hourStep) {
    const freq = describeEvery((hourStep ?? 1) * 3600);
    return qualified(m === 0 ? freq : `${freq} at :${two(m)}`);
  }
  if (hourRange) return qualified(`every hour from ${two(Number(hourRange[1]))}:${two(m)} to ${two(Number(hourRange[2]))}:${two(m)}`);
  const hours = numbers(hour);
  if (!hours || hours.length > 6) return null;
  const times = [...hours].sort((a, b) => a - b).map((h) => `${two(h)}:${two(m)}`);
  return `at ${joinWords(times)} ${days.daily}`;
}

/** `daily` follows a time of day ("at 09:00 every day"); `qualifier` follows a frequency ("every 15 minutes on weekdays"). */
function describeDays(fields: CronFields): { daily: string; qualifier: string } | null {
  const dom = fields.dayOfMonth.toUpperCase();
  const month = withNumbersForNames("month", fields.month);
  const dow = withNumbersForNames("dayOfWeek", fields.dayOfWeek);
  const monthList = numbers(month);
  const monthName = monthList?.length === 1 ? MONTHS[monthList[0]! - 1] : undefined;

  if (isAny(dom) && isAny(month) && isAny(dow)) return { daily: "every day", qualifier: "" };
  if (isAny(dom) && monthName && isAny(dow)) return { daily: `every day in ${monthName}`, qualifier: `in ${monthName}` };
  if (isAny(dom) && isAny(month)) {
    const on = describeWeekdays(dow);
    return on ? { daily: on, qualifier: on } : null;
  }
  if (!isAny(dow)) return null;
  const dayList = numbers(dom);
  const day = dom === "L" ? "the last day" : dayList?.length === 1 ? `the ${ordinal(dayList[0]!)}` : null;
  if (!day) return null;
  if (isAny(month)) return { daily: `on ${day} of every month`, qualifier: `on ${day} of every month` };
  if (monthName && dayList) return { daily: `on ${dayList[0]} ${monthName} every year`, qualifier: `on ${dayList[0]} ${monthName}` };
  return null;
}

function describeWeekdays(dow: string): string | null {
  const normalized = dow.replace(/\b7\b/g, "0");
  if (normalized === "1-5") return "on weekdays";
  if (normalized === "0,6" || normalized === "6,0") return "on weekends";
  const range = /^([0-6])-([0-6])$/.exec(normalized);
  if (range) return `from ${WEEKDAYS[Number(range[1])]} to ${WEEKDAYS[Number(range[2])]}`;
  const list = numbers(normalized);
  if (!list || list.some((d) => d > 6)) return null;
  return `on ${joinWords([...new Set(list)].map((d) => `${WEEKDAYS[d]}s`))}`;
}

function ordinal(n: number): string {
  const suffix = n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th";
  return `${n}${suffix}`;
}

function joinWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
