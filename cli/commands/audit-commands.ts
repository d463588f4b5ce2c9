// vigil audit verify
import { Command } from "commander";
import { contextOf } from "../cli-context";
import { CliError, EXIT } from "../exit-codes";
import { printJson, renderFields } from "../output";

export function auditCommand(): Command {
  const cmd = new Command("audit").description("the audit trail");

  cmd
    .command("verify")
    .description("check the audit trail's hash chain (against the newest known anchor, or the one given); exit 1 when it is broken")
    .option("--anchor-seq <n>", "verify against this published anchor's sequence number")
    .option("--anchor-hash <hex>", "… and its hash")
    .action(async (o: { anchorSeq?: string; anchorHash?: string }, command: Command) => {
      const ctx = contextOf(command);
      if ((o.anchorSeq === undefined) !== (o.anchorHash === undefined))
        throw new CliError(EXIT.usage, "give --anchor-seq and --anchor-hash together");
      const r = await ctx.client().call("getAuditVerify", { query: { anchorSeq: o.anchorSeq, anchorHash: o.anchorHash } });
      if (ctx.json) printJson(r);
      else
        process.stdout.write(
          renderFields([
            ["result", r.ok ? "ok: the trail is intact" : "BROKEN"],
            ["checked", `${r.checked} event(s)`],
            ["problem", r.problem],
            ["anchor", r.anchorProblem ?? (r.anchor ? "matches" : "none known")],
          ]),
        );
      if (!r.ok) throw new CliError(EXIT.failure, `audit trail verification failed: ${r.problem ?? r.anchorProblem ?? "see above"}`);
    });

  return cmd;
}
