// Durations in alert messages, short and unambiguous: "850 ms", "3.2 s", "4 min 10 s", "2 h 5 min".
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? "-" : "";
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  if (abs < 60_000) return `${sign}${Math.round(abs / 1000)} s`;
  if (abs < 3_600_000) {
    const m = Math.floor(abs / 60_000);
    const s = Math.round((abs % 60_000) / 1000);
    return `${sign}${m} min${s ? ` ${s} s` : ""}`;
  }
  const h = Math.floor(abs / 3_600_000);
  const m = Math.round((abs % 3_600_000) / 60_000);
  return `${sign}${h} h${m ? ` ${m} min` : ""}`;
}
