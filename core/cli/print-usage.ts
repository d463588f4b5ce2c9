// `--help` / `-h` for the operator commands: the usage on stdout and exit 0, before the command opens a database or
// parses anything else. docs/reference/cli.md quotes each usage, and the docs check compares them.
export function printUsageIfAsked(usage: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes("--help") && !argv.includes("-h")) return;
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
