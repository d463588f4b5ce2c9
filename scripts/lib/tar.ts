// A minimal gzip'd tar (ustar) writer and reader for backups of the embedded database's folder: no tar program or
// package needed. The writer takes a file's size from its header and copies exactly that many bytes (a file still
// being written by the server is cut or padded, as pg_basebackup does — the WAL replayed on restore repairs it).
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { PassThrough } from "node:stream";
import { once } from "node:events";
import zlib from "node:zlib";

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function header(name: string, size: number, mode: number, mtime: number, type: "0" | "5"): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = "";
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf("/", 154);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new Error(`path too long for a tar entry: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  h.write(base, 0, 100);
  h.write(octal(mode & 0o7777, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(Math.floor(mtime), 12), 136);
  h.write("        ", 148);
  h.write(type, 156);
  h.write("ustar\0", 257);
  h.write("00", 263);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

export interface TarWriter {
  addDirectory(name: string, mode?: number): Promise<void>;
  /** Copies the file as it is now: size taken first, then exactly that many bytes. false when it vanished meanwhile. */
  addFile(name: string, source: string): Promise<boolean>;
  addBuffer(name: string, data: Buffer, mode?: number): Promise<void>;
  finish(): Promise<void>;
}

export function createTarGz(out: string): TarWriter {
  const tar = new PassThrough();
  const done = pipeline(tar, zlib.createGzip({ level: 6 }), fs.createWriteStream(out, { mode: 0o600 }));
  done.catch(() => undefined); // awaited in finish() (and raced in write): never unhandled
  const write = async (chunk: Buffer) => {
    // A failed pipeline (disk full) never drains: racing it turns the wait into its error.
    if (!tar.write(chunk)) await Promise.race([once(tar, "drain"), done]);
  };
  const pad = (size: number) => (size % BLOCK ? write(Buffer.alloc(BLOCK - (size % BLOCK))) : Promise.resolve());
  return {
    async addDirectory(name, mode = 0o700) {
      await write(header(name.endsWith("/") ? name : `${name}/`, 0, mode, Date.now() / 1000, "5"));
    },
    async addFile(name, source) {
      let fd: number;
      try {
        fd = fs.openSync(source, "r");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return false; // dropped by the server meanwhile
        throw err;
      }
      try {
        const st = fs.fstatSync(fd);
        await write(header(name, st.size, 0o600, st.mtimeMs / 1000, "0"));
        let left = st.size;
        const buf = Buffer.alloc(1024 * 1024);
        while (left > 0) {
          const n = fs.readSync(fd, buf, 0, Math.min(buf.length, left), null);
          if (n === 0) {
            // Truncated while being read: pad to the size announced; WAL replay restores the content.
            await write(Buffer.alloc(left));
            break;
          }
          await write(Buffer.from(buf.subarray(0, n)));
          left -= n;
        }
        await pad(st.size);
        return true;
      } finally {
        fs.closeSync(fd);
      }
    },
    async addBuffer(name, data, mode = 0o600) {
      await write(header(name, data.length, mode, Date.now() / 1000, "0"));
      await write(data);
      await pad(data.length);
    },
    async finish() {
      await write(Buffer.alloc(BLOCK * 2));
      tar.end();
      await done;
    },
  };
}

function readString(b: Buffer, start: number, len: number): string {
  const s = b.subarray(start, start + len);
  const end = s.indexOf(0);
  return s.subarray(0, end === -1 ? len : end).toString("utf8");
}

/** Extracts a tar.gz written by createTarGz into dir. Refuses entries that would land outside dir. */
export async function extractTarGz(file: string, dir: string): Promise<string[]> {
  const names: string[] = [];
  let pending: Buffer = Buffer.alloc(0);
  let current: { fd: number; left: number; padding: number } | null = null;
  let ended = false;
  const root = path.resolve(dir);
  const gunzip = fs.createReadStream(file).pipe(zlib.createGunzip());
  for await (const chunk of gunzip as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (current) {
        const take = Math.min(current.left, pending.length);
        if (take > 0) fs.writeSync(current.fd, pending, 0, take);
        pending = pending.subarray(take);
        current.left -= take;
        if (current.left > 0) break;
        if (pending.length < current.padding) break;
        pending = pending.subarray(current.padding);
        fs.closeSync(current.fd);
        current = null;
      }
      if (ended || pending.length < BLOCK) break;
      const h = pending.subarray(0, BLOCK);
      pending = pending.subarray(BLOCK);
      if (h.every((b) => b === 0)) {
        ended = true;
        break;
      }
      if (readString(h, 257, 6) !== "ustar") throw new Error(`${file} is not a Vigil backup (not a tar archive)`);
      const prefix = readString(h, 345, 155);
      const name = (prefix ? `${prefix}/` : "") + readString(h, 0, 100);
      const size = parseInt(readString(h, 124, 12).trim() || "0", 8);
      const type = String.fromCharCode(h[156]!);
      const target = path.resolve(root, name);
      if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`refusing a backup entry outside the folder: ${name}`);
      names.push(name);
      if (type === "5") {
        fs.mkdirSync(target, { recursive: true, mode: 0o700 });
        continue;
      }
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      current = { fd: fs.openSync(target, "w", 0o600), left: size, padding: size % BLOCK ? BLOCK - (size % BLOCK) : 0 };
    }
  }
  if (current) throw new Error(`${file} is cut short (it ends inside ${names.at(-1)}): the backup is incomplete`);
  if (!ended) throw new Error(`${file} is cut short: the backup is incomplete`);
  return names;
}
