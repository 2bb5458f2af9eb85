// CSV as RFC 4180 writes it: CRLF line ends, a field quoted when it holds a comma, a double quote or a line
// break, a double quote inside doubled. Text a spreadsheet would run as a formula (=, +, -, @ first) gets a
// leading apostrophe: learners type their own names.

/** CsvValue is what a cell may hold (null: empty). */
export type CsvValue = string | number | boolean | null;

/** csvField renders one field. */
export function csvField(v: CsvValue): string {
  if (v === null) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** toCsv renders a header and rows, every record ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(",") + "\r\n").join("");
}
