// The records channel of a shell.command: the job may write {"records": N, "summary": "…"} to the file
// named by $VIGIL_RESULT_FILE. No file, or an empty one, reports nothing; a file that is there but is not
// that JSON fails the attempt (a job that meant to report a count must not pass silently).
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "zod";

const MAX_BYTES = 64 * 1024;

const resultSchema = z.object({
  records: z
    .number({ error: "records must be a number" })
    .int({ error: "records must be a whole number" })
    .min(0, { error: "records must be ≥ 0" })
    .optional(),
  summary: z.string({ error: "summary must be a string" }).optional(),
});

export type ShellResult = { records?: number; summary?: string };

/**
 * ownerUid: the job user's uid when the job runs as another user. The worker reads this file with its own rights, so
 * a job must not be able to point it elsewhere: a symbolic link, a link to another file, a FIFO or a file the job
 * did not write is refused, never read. redact: the run's secrets come out before the file's text is cut to a
 * length for a message or a summary.
 */
export async function readResultFile(
  file: string,
  ownerUid?: number,
  redact: (text: string) => string = (t) => t,
): Promise<ShellResult | null> {
  let text: string;
  try {
    const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = await fh.stat();
      if (!st.isFile() || st.nlink !== 1 || (ownerUid !== undefined && st.uid !== ownerUid)) {
        throw new Error("the result file ($VIGIL_RESULT_FILE) must be a plain file the job wrote itself (not a link or a device)");
      }
      const buf = Buffer.alloc(MAX_BYTES + 1);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      if (bytesRead > MAX_BYTES) throw new Error(`the result file ($VIGIL_RESULT_FILE) is larger than ${MAX_BYTES} bytes`);
      text = redact(buf.subarray(0, bytesRead).toString("utf8"));
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    if ((err as NodeJS.ErrnoException).code === "ELOOP") {
      throw new Error("the result file ($VIGIL_RESULT_FILE) must be a plain file the job wrote itself, not a symbolic link");
    }
    throw err;
  }
  if (text.trim() === "") return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(
      `the result file ($VIGIL_RESULT_FILE) must hold JSON like {"records": 12, "summary": "…"}; it holds: ${text.slice(0, 120)}`,
    );
  }
  const parsed = resultSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `the result file ($VIGIL_RESULT_FILE) is not {"records": <whole number ≥ 0>, "summary"?: "…"}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "result"}: ${i.message}`).join("; ")}`,
    );
  }
  return { records: parsed.data.records, summary: parsed.data.summary?.slice(0, 2000) };
}
