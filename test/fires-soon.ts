// A cron trigger that fires at a few whole seconds shortly after a given database time, then not again for a
// minute: a test can wait until they are all past and know exactly which fires exist when a planner looks.
export function firesSoon(
  t0: Date,
  opts: { lead?: number; count?: number; gap?: number } = {},
): { trigger: { kind: "cron"; cron: string; timezone: string }; fires: Date[] } {
  const { lead = 2, count = 4, gap = 1 } = opts;
  if (lead + (count - 1) * gap >= 55) throw new Error("firesSoon: the fires must fit well within a minute");
  const first = Math.ceil(t0.getTime() / 1000) * 1000 + lead * 1000;
  const fires = Array.from({ length: count }, (_, k) => new Date(first + k * gap * 1000));
  const seconds = fires.map((f) => f.getUTCSeconds());
  return { trigger: { kind: "cron", cron: `${seconds.join(",")} * * * * *`, timezone: "UTC" }, fires };
}
