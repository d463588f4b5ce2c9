// `npm run create-admin -- --email ops@example.com [--name "Ops"]`: creates an admin, or makes an
// existing account an active admin with a new password (the way back in when locked out).
// The password comes from VIGIL_ADMIN_PASSWORD, from stdin when piped, or from a hidden prompt.
import readline from "node:readline";
import { parseArgs } from "node:util";
import pg from "pg";
import { withTransaction } from "../core/db/pool";
import { systemActor } from "../core/auth/roles";
import { createUser } from "../core/auth/create-user";
import { updateUser } from "../core/auth/update-user";
import { emailSchema } from "../core/auth/user-input";
import { passwordSchema } from "../core/auth/password";
import { openDatabaseForCommand } from "./lib/prepare-database";
import { printUsageIfAsked } from "../core/cli/print-usage";

const USAGE = `usage: npm run create-admin -- [--email EMAIL] [--name NAME]
Creates an admin, or makes an existing account an active admin with a new password.
--email defaults to VIGIL_ADMIN_EMAIL; the password comes from VIGIL_ADMIN_PASSWORD, standard input or a prompt.`;
printUsageIfAsked(USAGE);

const say = (line: string) => process.stdout.write(`[create-admin] ${line}\n`);

async function readPassword(): Promise<string> {
  const fromEnv = process.env.VIGIL_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY) {
    let text = "";
    for await (const chunk of process.stdin) text += chunk;
    return text.replace(/\r?\n$/, "");
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  // Echo nothing while the password is typed.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
    if (s.startsWith("Password")) process.stdout.write(s);
  };
  const answer = await new Promise<string>((resolve) => rl.question("Password (hidden): ", resolve));
  rl.close();
  process.stdout.write("\n");
  return answer;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" } } });
  const email = emailSchema.safeParse(values.email ?? process.env.VIGIL_ADMIN_EMAIL ?? "");
  if (!email.success) {
    say(`give a valid --email (${email.error.issues[0]?.message})`);
    return 2;
  }
  const password = passwordSchema.safeParse(await readPassword());
  if (!password.success) {
    say(`the password is not acceptable: ${password.error.issues[0]?.message}`);
    return 2;
  }
  const { url, embedded } = await openDatabaseForCommand(say);
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: "vigil-create-admin" });
  const actor = systemActor("cli:create-admin");
  try {
    const message = await withTransaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(`SELECT id FROM users WHERE email = $1 FOR UPDATE`, [email.data]);
      if (rows[0]) {
        await updateUser(rows[0].id, { role: "admin", disabled: false, password: password.data }, actor, {
          db: tx,
          reason: "npm run create-admin",
          // The way back in: an SSO account becomes admin here too (its next single sign-on maps its role again).
          overrideSsoRole: true,
        });
        return `${email.data} is now an active admin with the new password`;
      }
      await createUser({ email: email.data, name: values.name ?? "", password: password.data, role: "admin" }, actor, {
        db: tx,
        reason: "npm run create-admin",
      });
      return `created admin ${email.data}`;
    }, pool);
    say(message);
    if (process.env.VIGIL_LOCAL_LOGIN === "off") {
      say(
        "VIGIL_LOCAL_LOGIN=off here: a password signs in only on a console started with VIGIL_LOCAL_LOGIN=on (see the README's Single sign-on)",
      );
    }
    return 0;
  } finally {
    await pool.end();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[create-admin] failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
