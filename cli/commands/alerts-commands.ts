// vigil alerts list | ack
import { Command } from "commander";
import { ALERT_KINDS } from "../../core/alerts/alert-kinds";
import { contextOf, positiveInt, requireUuid, resolveScheduleId } from "../cli-context";
import { CliError, EXIT } from "../exit-codes";
import { printJson, renderTable, shortTime } from "../output";

export function alertsCommand(): Command {
  const cmd = new Command("alerts").description("list and acknowledge alerts");

  cmd
    .command("list")
    .description("open alerts, newest first (--all: resolved ones too)")
    .option("--all", "resolved alerts too")
    .option("--schedule <schedule>", "only this schedule's alerts (name or id)")
    .option("--kind <kind>", `only this kind: ${ALERT_KINDS.join(", ")}`)
    .option("--limit <n>", "at most this many (1..500)", positiveInt, 100)
    .action(async (o: { all?: boolean; schedule?: string; kind?: string; limit: number }, command: Command) => {
      const ctx = contextOf(command);
      if (o.kind && !(ALERT_KINDS as readonly string[]).includes(o.kind))
        throw new CliError(EXIT.usage, `--kind must be one of ${ALERT_KINDS.join(", ")}`);
      const scheduleId = o.schedule ? await resolveScheduleId(ctx, o.schedule) : undefined;
      const page = await ctx.client().call("getAlerts", {
        query: { state: o.all ? "all" : "open", scheduleId, kind: o.kind as (typeof ALERT_KINDS)[number] | undefined, limit: o.limit },
      });
      if (ctx.json) return printJson(page);
      process.stdout.write(
        renderTable(page.alerts, [
          { header: "id", value: (a) => a.id },
          { header: "kind", value: (a) => a.kind },
          { header: "severity", value: (a) => a.severity },
          { header: "schedule", value: (a) => a.scheduleName },
          { header: "opened", value: (a) => shortTime(a.openedAt) },
          {
            header: "state",
            value: (a) => (a.resolvedAt ? "resolved" : a.acknowledgedAt ? `acked by ${a.acknowledgedBy ?? "?"}` : "open"),
          },
          { header: "message", value: (a) => a.message },
        ]),
      );
    });

  cmd
    .command("ack")
    .description("acknowledge an open alert: someone is on it")
    .argument("<alert-id>", "the alert's id")
    .option("--note <text>", "a note kept with the acknowledgement")
    .action(async (id: string, o: { note?: string }, command: Command) => {
      const ctx = contextOf(command);
      const r = await ctx
        .client()
        .call("postAlertsByIdAcknowledge", { params: { id: requireUuid("alert id", id) }, body: { note: o.note } });
      if (ctx.json) return printJson(r);
      process.stdout.write(
        `acknowledged: ${r.alert.kind} alert ${r.alert.id}${r.alert.scheduleName ? ` on ${r.alert.scheduleName}` : ""}\n`,
      );
    });

  return cmd;
}
