import { describe, expect, it } from "vitest";
import { OutputLog } from "./output-log";
import { createRedactor } from "../../../core/secrets/redact-secrets";

function collect(maxBytes: number, maxLines = 900) {
  const lines: string[] = [];
  const out = new OutputLog((level, message) => lines.push(`${level} ${message}`), maxBytes, maxLines);
  return { out, lines };
}

describe("OutputLog", () => {
  it("joins lines split across chunks and characters split across chunks, per stream", () => {
    const { out, lines } = collect(10_000);
    const euro = Buffer.from("€");
    out.write("stdout", Buffer.from("hel"));
    out.write("stderr", Buffer.from("oops\n"));
    out.write("stdout", Buffer.concat([Buffer.from("lo "), euro.subarray(0, 1)]));
    out.write("stdout", Buffer.concat([euro.subarray(1), Buffer.from("\r\nlast")]));
    out.end();
    expect(lines).toEqual(["warn oops", "info hello €", "info last"]);
    expect(out.stderrTail).toEqual(["oops"]);
  });

  it("stops at the byte cap with one marker line, keeps counting and keeps the stderr tail", () => {
    const { out, lines } = collect(20);
    out.write("stdout", Buffer.from("0123456789\n0123456789\nmore\n"));
    out.write("stderr", Buffer.from("late error\n"));
    out.end();
    expect(lines).toEqual([
      "info 0123456789",
      "warn output truncated after 11 bytes (1 lines): the rest of stdout and stderr is discarded (limits: 20 bytes, 900 lines per attempt)",
    ]);
    expect(out.bytesSeen).toBe(38);
    expect(out.stderrTail).toEqual(["late error"]);
  });

  it("stops at the line cap", () => {
    const { out, lines } = collect(10_000, 2);
    out.write("stdout", Buffer.from("a\nb\nc\n"));
    expect(lines.slice(0, 2)).toEqual(["info a", "info b"]);
    expect(lines[2]).toMatch(/^warn output truncated after 4 bytes \(2 lines\)/);
  });

  it.each([
    ["raw, across the 8 KiB cut, one byte a chunk", (v: string) => "x".repeat(8180) + v + "y".repeat(9000), 1],
    [
      "base64, across the 8 KiB cut, in 1000-byte chunks",
      (v: string) => "x".repeat(8185) + Buffer.from(v).toString("base64") + "y".repeat(9000),
      1000,
    ],
    ["on stderr, across the 300-character tail cut", (v: string) => "0".repeat(290) + v, 7],
  ] as const)("redacts a secret before cutting a line: %s", (_label, line, chunk) => {
    const value = `secret-${"s3cr3t".repeat(5)}`;
    const lines: string[] = [];
    const out = new OutputLog((level, message) => lines.push(message), 1_000_000, 900, createRedactor([{ name: "T", value }]));
    const bytes = Buffer.from(`${line(value)}\n`);
    const stream = line(value).startsWith("0") ? "stderr" : "stdout";
    for (let i = 0; i < bytes.length; i += chunk) out.write(stream, bytes.subarray(i, i + chunk));
    out.end();
    const all = [...lines, ...out.stderrTail].join("\n");
    for (const piece of ["s3cr3ts3cr3t", Buffer.from(value).toString("base64").slice(4, 24)]) expect(all).not.toContain(piece);
    expect(lines.join("")).toContain("[secret T]");
  });
});
