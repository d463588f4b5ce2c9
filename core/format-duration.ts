// Durations as Vigil writes them everywhere — the console's tables and charts, alert messages and their webhooks —
// short and unambiguous: "850 ms", "3.2 s", "4 min 10 s", "2 h 5 min", "3 d 4 h". One owner, so a lateness reads the
// same on the run's page as in the alert about it.
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return "—";
  const sign = ms < 0 ? "-" : "";
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 10_000) return `${sign}${(a / 1000).toFixed(1)} s`;
  if (a < 60_000) return `${sign}${Math.round(a / 1000)} s`;
  if (a < 3_600_000) {
    const m = Math.floor(a / 60_000);
    const s = Math.round((a % 60_000) / 1000);
    return `${sign}${m} min${s ? ` ${s} s` : ""}`;
  }
  if (a < 86_400_000) {
    const h = Math.floor(a / 3_600_000);
    const m = Math.round((a % 3_600_000) / 60_000);
    return `${sign}${h} h${m ? ` ${m} min` : ""}`;
  }
  const d = Math.floor(a / 86_400_000);
  const h = Math.round((a % 86_400_000) / 3_600_000);
  return `${sign}${d} d${h ? ` ${h} h` : ""}`;
}
