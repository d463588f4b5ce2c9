// How the CLI prints: aligned tables for people by default, the console's JSON answer as is with --json.

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
}

/** Columns padded to their widest cell; empty values print as "-". */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => String(c.value(r) ?? "-").replace(/\s+/g, " ")));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

/** "key: value" lines for one object, in the given order. */
export function renderFields(fields: readonly [string, unknown][]): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return (
    fields.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v === null || v === undefined || v === "" ? "-" : String(v)}`).join("\n") + "\n"
  );
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** An ISO time shortened for a table (UTC, to the second). */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "Z") : "-";
}
