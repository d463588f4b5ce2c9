// `npm run vigil -- <command>`: schedules as code against a running console, through its API with an API token.
//
//   npm run vigil -- export [--format yaml|json] [--tag T]... [--name N]... [--out FILE]
//   npm run vigil -- apply FILE [--dry-run (default) | --yes] [--prune]
//
// VIGIL_URL (default http://localhost:$PORT, the port `npm start` serves on: 3000 unless PORT is set) and VIGIL_TOKEN
// (an API token, Admin page; operator for apply) say where and as whom. `apply` prints the diff; only with --yes is it
// applied (one transaction, each change audited as the token). Exit codes: 0 done (or a dry run), 1 refused (the
// reasons are printed, naming the schedule and field), 2 usage. --help (or -h, or the command `help`) prints the usage and exits 0.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { ApplyChange, ApplyResult } from "../core/schedules/as-code/apply-schedules";

const USAGE = `usage:
  npm run vigil -- export [--format yaml|json] [--tag T]... [--name N]... [--out FILE]
  npm run vigil -- apply FILE [--dry-run | --yes] [--prune]
env: VIGIL_URL (default http://localhost:$PORT, PORT 3000 unless set), VIGIL_TOKEN (an API token)`;

/** Where the console is: VIGIL_URL, else the local console on PORT as `npm start` serves it. */
export function consoleUrl(env: Record<string, string | undefined> = process.env): string {
  const url = env.VIGIL_URL?.trim() || `http://localhost:${env.PORT?.trim() || "3000"}`;
  return url.replace(/\/$/, "");
}

interface ApiErrorBody {
  error?: { code?: string; message?: string; fields?: Record<string, string> };
}

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; text: string }> {
  const base = consoleUrl();
  const token = process.env.VIGIL_TOKEN;
  if (!token) throw new UsageError("set VIGIL_TOKEN to an API token (Admin page → API tokens)");
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

class UsageError extends Error {}

function printRefusal(status: number, text: string): number {
  let body: ApiErrorBody = {};
  try {
    body = JSON.parse(text) as ApiErrorBody;
  } catch {
    // Not JSON (a proxy's page): print it as it came.
  }
  process.stderr.write(`refused (${status}${body.error?.code ? ` ${body.error.code}` : ""}): ${body.error?.message ?? text}\n`);
  for (const [field, message] of Object.entries(body.error?.fields ?? {})) process.stderr.write(`  ${field}: ${message}\n`);
  return 1;
}

const show = (v: unknown) => (v === null || v === undefined ? "(default)" : JSON.stringify(v));

export function formatChange(c: ApplyChange): string[] {
  switch (c.op) {
    case "create":
      return [`+ create ${c.name}`];
    case "pause":
      return [`‖ pause  ${c.name} (enabled: false)`];
    case "delete":
      return [`- delete ${c.name} (managed, not in the file)`];
    case "change":
      return [
        `~ change ${c.name}${c.adopt ? " (taken over: now managed by this file)" : ""}`,
        ...c.fields.map((f) => `    ${f.field}: ${show(f.from)} → ${show(f.to)}`),
      ];
  }
}

export function formatApplyResult(r: ApplyResult): string {
  const lines = r.changes.flatMap(formatChange);
  if (r.changes.length === 0) lines.push("no changes: the schedules are as the file says");
  if (r.unchanged.length) lines.push(`  ${r.unchanged.length} unchanged`);
  if (r.leftPaused.length) lines.push(`  left paused (a file never resumes; resume in the console): ${r.leftPaused.join(", ")}`);
  if (r.notInDocument.length) lines.push(`  managed but not in the file, kept (--prune deletes them): ${r.notInDocument.join(", ")}`);
  lines.push(
    r.dryRun
      ? r.changes.length
        ? `dry run: nothing changed. Apply with --yes.`
        : "dry run: nothing changed."
      : `applied ${r.changes.length} change${r.changes.length === 1 ? "" : "s"} in one transaction.`,
  );
  return `${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  // Asked for help, the usage is the whole answer, even beside other arguments.
  if (argv.includes("--help") || argv.includes("-h") || argv[0] === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      tag: { type: "string", multiple: true },
      name: { type: "string", multiple: true },
      out: { type: "string" },
      "dry-run": { type: "boolean" },
      yes: { type: "boolean" },
      prune: { type: "boolean" },
    },
  });
  const [command, file] = positionals;
  if (command === "export") {
    const q = new URLSearchParams({ format: values.format ?? "yaml" });
    for (const t of values.tag ?? []) q.append("tag", t);
    for (const n of values.name ?? []) q.append("name", n);
    const res = await call("GET", `/api/schedules/export?${q}`);
    if (res.status !== 200) return printRefusal(res.status, res.text);
    if (values.out) fs.writeFileSync(values.out, res.text);
    else process.stdout.write(res.text);
    return 0;
  }
  if (command === "apply") {
    if (!file) throw new UsageError("apply needs the file: npm run vigil -- apply schedules.yaml");
    if (values.yes && values["dry-run"]) throw new UsageError("--yes and --dry-run contradict each other");
    const text = fs.readFileSync(file, "utf8");
    const res = await call("POST", "/api/schedules/apply", {
      document: text,
      dryRun: !values.yes,
      prune: values.prune ?? false,
      source: path.basename(file),
    });
    if (res.status !== 200) return printRefusal(res.status, res.text);
    process.stdout.write(formatApplyResult(JSON.parse(res.text) as ApplyResult));
    return 0;
  }
  throw new UsageError(command ? `unknown command ${command}` : "name a command");
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("vigil.ts")) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
        process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
        process.exit(2);
      }
      process.stderr.write(`vigil: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
