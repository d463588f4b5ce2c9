// The secret store's key for the embedded database: `npm start` without VIGIL_SECRET_KEY creates 32 random
// bytes once, keeps them in the data folder (mode 0600, beside the cluster they protect) and hands them to the
// console and the workers. With DATABASE_URL the operator provides the key; nothing is generated.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export const LOCAL_SECRET_KEY_FILE = "vigil-secret-key";

export function ensureLocalSecretKey(dataDir: string, say: (line: string) => void): string {
  const file = path.join(path.resolve(dataDir), LOCAL_SECRET_KEY_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const key = crypto.randomBytes(32).toString("base64");
  // As root the cluster may live elsewhere (scripts/lib/postgres-as-root.ts) and this folder not exist yet.
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  say(`created the secret store's key in ${file} (back it up: secrets cannot be decrypted without it)`);
  return key;
}
