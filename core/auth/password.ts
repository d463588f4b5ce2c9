// Password hashing with scrypt (memory-hard, from node:crypto). The stored string names its
// algorithm version and cost so the cost can be raised later: old hashes still verify, and
// needsRehash() tells the login path to upgrade them.
import crypto from "node:crypto";
import { promisify } from "node:util";
import { z } from "zod";

const scrypt = promisify(crypto.scrypt) as (
  pw: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  len: number,
  opts: crypto.ScryptOptions,
) => Promise<Buffer>;

// OWASP's scrypt option "N=2^15 (32 MiB), r=8, p=3": ~300 ms here and 32 MiB per hash, so a burst
// of logins cannot exhaust a small server's memory.
const CURRENT = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 64;
const SALT_BYTES = 16;
const VERSION = "scrypt-v1";

export const passwordSchema = z.string().min(12, "Use at least 12 characters.").max(256, "Use at most 256 characters.");

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function maxmem(N: number, r: number, p: number): number {
  // scrypt needs 128·N·r bytes (plus p·128·r); Node refuses more than 32 MiB unless told.
  return 128 * N * r * (p + 1) + 1024 * 1024;
}

/** `scrypt-v1$N=32768,r=8,p=3$<salt b64>$<key b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const { N, r, p } = CURRENT;
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_BYTES, { N, r, p, maxmem: maxmem(N, r, p) });
  return `${VERSION}$N=${N},r=${r},p=${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split("$");
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  const m = /^N=(\d+),r=(\d+),p=(\d+)$/.exec(parts[1]!);
  if (!m) return null;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Refuse absurd parameters from a corrupted row instead of allocating gigabytes.
  if (N < 2 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  const salt = Buffer.from(parts[2]!, "base64");
  const key = Buffer.from(parts[3]!, "base64");
  if (salt.length < 8 || key.length < 32) return null;
  return { N, r, p, salt, key };
}

/** Constant-time comparison; false for a wrong password or an unreadable hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parse(stored);
  if (!h) return false;
  const key = await scrypt(password.normalize("NFKC"), h.salt, h.key.length, { N: h.N, r: h.r, p: h.p, maxmem: maxmem(h.N, h.r, h.p) });
  return crypto.timingSafeEqual(key, h.key);
}

export function needsRehash(stored: string): boolean {
  const h = parse(stored);
  return !h || h.N !== CURRENT.N || h.r !== CURRENT.r || h.p !== CURRENT.p;
}

let dummy: Promise<string> | undefined;

/** Spends the same time as a real check, so a login for an unknown email is not faster. */
export async function burnPasswordCheck(password: string): Promise<false> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString("hex"));
  await verifyPassword(password, await dummy);
  return false;
}
