// `npm run vigil -- <command>`: the `vigil` command line (cli/) as an npm script. See docs/reference/cli.md.
import { runVigil } from "../cli/vigil-program";

export { consoleUrl } from "../cli/cli-config";
export { formatApplyResult, formatChange } from "../cli/commands/as-code-commands";

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("vigil.ts")) {
  process.exitCode = await runVigil(process.argv.slice(2));
}
