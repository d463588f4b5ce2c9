// One CSV cell (RFC 4180), safe to open in a spreadsheet: a value starting with = + - @ (or a tab
// or carriage return) is a formula to Excel and friends, so it is prefixed with an apostrophe —
// an audit reason like "=HYPERLINK(…)" must stay text.
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let s = value instanceof Date ? value.toISOString() : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
