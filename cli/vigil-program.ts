// The `vigil` command line: operate a running console over its API (the typed client generated from
// its contract, core/api-client/). Exit codes: cli/exit-codes.ts.
import { Command, CommanderError } from "commander";
import { alertsCommand } from "./commands/alerts-commands";
import { applyCommand, exportCommand } from "./commands/as-code-commands";
import { auditCommand } from "./commands/audit-commands";
import { runsCommand } from "./commands/runs-commands";
import { schedulesCommand } from "./commands/schedules-commands";
import { describeFailure, EXIT } from "./exit-codes";

export function createProgram(): Command {
  const program = new Command("vigil")
    .description("Operate a Vigil console from the command line: schedules, runs, alerts, the audit trail, schedules as code.")
    .option("--url <url>", "the console's URL (else VIGIL_URL, the config file's url, or http://localhost:$PORT)")
    .option("--json", "print the console's JSON answer instead of a table (for scripts)")
    .addHelpText(
      "after",
      `
The API token comes from VIGIL_TOKEN, else the config file ~/.config/vigil/config.json ({"url": "...", "token": "..."};
VIGIL_CONFIG names another file).
Exit codes: 0 ok, 1 refused or failed, 2 usage, 3 no token or the token was refused, 4 console unreachable.`,
    );
  for (const c of [schedulesCommand(), runsCommand(), alertsCommand(), auditCommand(), exportCommand(), applyCommand()])
    program.addCommand(c);
  // Every level: a usage error exits 2 (not commander's 1), --help exits 0; a group named without a subcommand
  // prints its help and exits 2. A fixed help width keeps the documented help texts what every terminal prints.
  const configure = (c: Command) => {
    c.exitOverride().configureHelp({ helpWidth: 120 }).showHelpAfterError("(add --help for usage)");
    c.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs the CLI and returns its exit code; messages go to stdout/stderr. */
export async function runVigil(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for (--help, `vigil help`) is exit 0; help shown because a subcommand is missing is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { code, message } = describeFailure(err);
    process.stderr.write(`vigil: ${message}\n`);
    return code;
  }
}
