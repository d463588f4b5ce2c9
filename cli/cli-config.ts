// Where the console is and as whom the CLI calls it: --url / --token, else VIGIL_URL / VIGIL_TOKEN, else the
// config file (~/.config/vigil/config.json, or VIGIL_CONFIG: {"url": "...", "token": "..."}), else the local
// console on PORT as `npm start` serves it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { CliError, EXIT } from "./exit-codes";

type Env = Record<string, string | undefined>;

const configFileSchema = z.object({ url: z.string().optional(), token: z.string().optional() });

export function configFilePath(env: Env = process.env): string {
  if (env.VIGIL_CONFIG?.trim()) return env.VIGIL_CONFIG.trim();
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), ".config");
  return path.join(base, "vigil", "config.json");
}

export function readConfigFile(file: string): z.infer<typeof configFileSchema> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(EXIT.usage, `cannot read the config file ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `the config file ${file} is not JSON (expected {"url": "...", "token": "..."})`);
  }
  const r = configFileSchema.safeParse(parsed);
  if (!r.success) throw new CliError(EXIT.usage, `the config file ${file} is not {"url": string, "token": string}`);
  return r.data;
}

/** Where the console is: VIGIL_URL, else the local console on PORT as `npm start` serves it. */
export function consoleUrl(env: Env = process.env): string {
  const url = env.VIGIL_URL?.trim() || `http://localhost:${env.PORT?.trim() || "3000"}`;
  return url.replace(/\/$/, "");
}

export interface Connection {
  url: string;
  token: string;
}

export function resolveConnection(flags: { url?: string; token?: string }, env: Env = process.env): Connection {
  const file = readConfigFile(configFilePath(env));
  const url = (flags.url?.trim() || env.VIGIL_URL?.trim() || file.url?.trim() || consoleUrl(env)).replace(/\/$/, "");
  const token = flags.token?.trim() || env.VIGIL_TOKEN?.trim() || file.token?.trim();
  if (!token) {
    throw new CliError(
      EXIT.auth,
      `no API token: set VIGIL_TOKEN, or put {"url": "...", "token": "..."} in ${configFilePath(env)} (create a token on the console's Admin page)`,
    );
  }
  return { url, token };
}
