// How a benchmark file runs on its own (`npx tsx bench/x.bench.ts …`): its main when the file is the entry
// point, or a helper process of it (`… --raw-worker <url>`, the raw pg-boss baselines), exiting non-zero with
// the error when either fails.
import { pathToFileURL } from "node:url";

export function runBenchWhenMain(
  moduleUrl: string,
  label: string,
  main: () => Promise<void>,
  helper?: (arg: string) => Promise<void>,
): void {
  const fail = (what: string) => (err: unknown) => {
    process.stderr.write(`[${what}] failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  };
  if (helper && process.argv[2] === "--raw-worker") {
    helper(process.argv[3]!).catch(fail(`${label} raw worker`));
  } else if (process.argv[1] && moduleUrl === pathToFileURL(process.argv[1]).href) {
    main().then(() => process.exit(0), fail(label));
  }
}
