// `npm run audit-verify -- [--anchor-file path | --anchor-seq N --anchor-hash H [--anchor-count C]]`: checks the
// audit hash chain from its start to its head and, given an anchor published outside the database (the default is
// VIGIL_AUDIT_ANCHOR_FILE's last line, else the file `npm start` keeps in Vigil's data folder), that the row it names still exists with its hash and nothing before it is
// missing. Exit code 0 when everything holds, 1 when not, 2 for a usage problem.
import { parseArgs } from "node:util";
import pg from "pg";
import { getEnv } from "../core/env";
import {
  AnchorFileError,
  auditAnchorSchema,
  findLastAnchorInFile,
  readLastAnchorFromFile,
  type AuditAnchor,
} from "../core/audit/audit-anchor";
import { defaultAnchorFileFor } from "./lib/embedded-credentials";
import { verifyAuditWithAnchor } from "../core/audit/verify-audit-anchor";
import { openDatabaseForCommand } from "./lib/prepare-database";
import { printUsageIfAsked } from "../core/cli/print-usage";

const USAGE = `usage: npm run audit-verify -- [--anchor-file FILE | --anchor-seq N --anchor-hash H [--anchor-count C]]
Checks the audit hash chain from its start to its head, and against an anchor kept outside the database:
the one given, else the last line of VIGIL_AUDIT_ANCHOR_FILE, else the anchor file npm start keeps in Vigil's data folder.
exit code: 0 everything holds, 1 it does not, 2 a usage problem`;
printUsageIfAsked(USAGE);

const say = (line: string) => process.stdout.write(`[audit-verify] ${line}\n`);

function anchorFromArgs(values: Record<string, string | undefined>): (AuditAnchor & { source: string }) | null {
  if (values["anchor-seq"] !== undefined || values["anchor-hash"] !== undefined) {
    const parsed = auditAnchorSchema.safeParse({ seq: values["anchor-seq"], hash: values["anchor-hash"], count: values["anchor-count"] });
    if (!parsed.success) throw new AnchorFileError(`--anchor-seq/--anchor-hash: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    return { ...parsed.data, source: "command line" };
  }
  const explicit = values["anchor-file"] ?? getEnv().VIGIL_AUDIT_ANCHOR_FILE;
  if (explicit) return { ...readLastAnchorFromFile(explicit), source: explicit };
  // The file `npm start` has the workers append to by default; none yet (nothing published so far) is no anchor.
  const file = defaultAnchorFileFor(getEnv());
  const found = findLastAnchorInFile(file);
  return found ? { ...found, source: file } : null;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      "anchor-file": { type: "string" },
      "anchor-seq": { type: "string" },
      "anchor-hash": { type: "string" },
      "anchor-count": { type: "string" },
    },
  });
  let anchor: (AuditAnchor & { source: string }) | null;
  try {
    anchor = anchorFromArgs(values);
  } catch (err) {
    if (!(err instanceof AnchorFileError)) throw err;
    say(err.message);
    return 2;
  }
  const { url, embedded } = await openDatabaseForCommand(say);
  const client = new pg.Client({ connectionString: url, application_name: "vigil-audit-verify" });
  await client.connect();
  try {
    const r = await verifyAuditWithAnchor(client, anchor);
    if (r.brokenId === null) say(`chain intact: ${r.checked} rows from the start to the head (seq ${r.head?.seq ?? 0})`);
    else say(`CHAIN BROKEN at row ${r.brokenId}: ${r.problem} (${r.checked} rows checked)`);
    if (!anchor) say("no anchor given (--anchor-file, or VIGIL_AUDIT_ANCHOR_FILE): removal of the newest rows cannot be ruled out");
    else if (r.anchorProblem) say(`ANCHOR NOT MATCHED (${anchor.source}): ${r.anchorProblem}`);
    else
      say(
        `anchor matched (${anchor.source}): seq ${anchor.seq} still has hash ${anchor.hash}${anchor.at ? `, as published at ${anchor.at}` : ""}`,
      );
    say(r.ok ? "ok" : "FAILED");
    return r.ok ? 0 : 1;
  } finally {
    await client.end();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[audit-verify] failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
