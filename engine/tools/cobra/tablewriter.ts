// olekukonko/tablewriter v0.0.5 as etcdctl and etcdutl use it (NewWriter, SetHeader, Append,
// SetAlignment(ALIGN_RIGHT), Render): `+---+` borders, centred upper-case headers ("hash_revision" →
// "HASH REVISION"), and cells longer than 30 columns wrapped at spaces by the same minimum-raggedness
// algorithm — so a long ERRORS cell breaks where etcd's does.

/** Align is tablewriter's alignment constant. */
export type Align = "default" | "center" | "right" | "left";

const maxRowWidth = 30;

// tablewriter strips ANSI colour sequences before measuring.
const ansiEscape = new RegExp(`${String.fromCharCode(0x1b)}\\[(?:[0-9]{1,3}(?:;[0-9]{1,3})*)?[m|K]`, "g");

/** displayWidth approximates go-runewidth: East Asian wide characters count two, combining marks zero. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s.replace(ansiEscape, "")) {
    const cp = ch.codePointAt(0) as number;
    if (/\p{Mn}|\p{Me}/u.test(ch) || cp === 0x200b) continue;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) ||
      (cp >= 0x20000 && cp <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}

/** title is tablewriter's Title: '_' (and '.' outside numbers) become spaces, trimmed, upper-cased. */
export function title(name: string): string {
  const rs = [...name];
  const numOrSpace = (r: string | undefined) => r !== undefined && ((r >= "0" && r <= "9") || r === " ");
  for (let i = 0; i < rs.length; i++) {
    if (rs[i] === "_") rs[i] = " ";
    else if (rs[i] === ".") {
      if ((i !== 0 && !numOrSpace(rs[i - 1])) || (i !== rs.length - 1 && !numOrSpace(rs[i + 1]))) rs[i] = " ";
    }
  }
  let out = rs.join("").trim();
  if (out.length === 0 && name.length > 0) out = " ";
  return out.toUpperCase();
}

function pad(s: string, width: number): string {
  const gap = width - displayWidth(s);
  if (gap <= 0) return s;
  const left = Math.floor(gap / 2);
  return " ".repeat(left) + s + " ".repeat(gap - left);
}

function padLeft(s: string, width: number): string {
  const gap = width - displayWidth(s);
  return gap > 0 ? " ".repeat(gap) + s : s;
}

function padRight(s: string, width: number): string {
  const gap = width - displayWidth(s);
  return gap > 0 ? s + " ".repeat(gap) : s;
}

/** wrapWords is tablewriter's WrapWords: a minimum-raggedness line breaking of words. */
function wrapWords(words: string[], spc: number, lim: number, pen: number): string[][] {
  const n = words.length;
  const length: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n).fill(0);
    row[i] = displayWidth(words[i] as string);
    for (let j = i + 1; j < n; j++) row[j] = (row[j - 1] as number) + spc + displayWidth(words[j] as string);
    length.push(row);
  }
  const nbrk = new Array<number>(n).fill(0);
  const cost = new Array<number>(n).fill(2147483647);
  for (let i = n - 1; i >= 0; i--) {
    const li = length[i] as number[];
    if ((li[n - 1] as number) <= lim) {
      cost[i] = 0;
      nbrk[i] = n;
    } else {
      for (let j = i + 1; j < n; j++) {
        const d = lim - (li[j - 1] as number);
        let c = d * d + (cost[j] as number);
        if ((li[j - 1] as number) > lim) c += pen;
        if (c < (cost[i] as number)) {
          cost[i] = c;
          nbrk[i] = j;
        }
      }
    }
  }
  const lines: string[][] = [];
  for (let i = 0; i < n; i = nbrk[i] as number) lines.push(words.slice(i, nbrk[i]));
  return lines;
}

/** wrapString is tablewriter's WrapString. */
export function wrapString(s: string, limIn: number): string[] {
  const words = s.replace(/\n/g, " ").split(" ");
  let lim = limIn;
  for (const w of words) lim = Math.max(lim, displayWidth(w));
  return wrapWords(words, 1, lim, 1e5).map((l) => l.join(" "));
}

/** Table renders rows the way tablewriter's default writer does. */
export class Table {
  private readonly cs = new Map<number, number>();
  private readonly rs = new Map<number, number>();
  private headers: string[][] = [];
  private readonly lines: string[][][] = [];
  private align: Align = "default";

  setHeader(keys: readonly string[]): void {
    this.headers = keys.map((k, i) => this.parseDimension(k, i, -1));
  }

  setAlignment(a: Align): void {
    this.align = a;
  }

  append(row: readonly string[]): void {
    const n = this.lines.length;
    this.lines.push(row.map((v, i) => this.parseDimension(v, i, n)));
  }

  private parseDimension(str: string, col: number, row: number): string[] {
    let raw = str.split("\n");
    let maxWidth = Math.max(0, ...raw.map(displayWidth));
    if (maxWidth > maxRowWidth) maxWidth = maxRowWidth;
    let newMax = maxWidth;
    const newRaw: string[] = [];
    raw = [raw.join(" ")];
    raw.forEach((para, i) => {
      const paraLines = wrapString(para, maxWidth);
      for (const l of paraLines) newMax = Math.max(newMax, displayWidth(l));
      if (i > 0) newRaw.push(" ");
      newRaw.push(...paraLines);
    });
    maxWidth = newMax;
    const v = this.cs.get(col);
    if (v === undefined || v < maxWidth || v === 0) this.cs.set(col, maxWidth);
    const h = this.rs.get(row);
    if (h === undefined || h < newRaw.length || h === 0) this.rs.set(row, newRaw.length);
    return newRaw;
  }

  private line(): string {
    let out = "+";
    for (let i = 0; i < this.cs.size; i++) out += `-${"-".repeat(this.cs.get(i) ?? 0)}-+`;
    return `${out}\n`;
  }

  /** render returns the whole table as text. */
  render(): string {
    let out = this.line();
    if (this.headers.length > 0) {
      const end = this.cs.size - 1;
      const max = this.rs.get(-1) ?? 0;
      for (let x = 0; x < max; x++) {
        out += "|";
        for (let y = 0; y <= end; y++) {
          const h = title(this.headers[y]?.[x] ?? "");
          out += ` ${pad(h, this.cs.get(y) ?? 0)} |`;
        }
        out += "\n";
      }
      out += this.line();
    }
    this.lines.forEach((columns, rowIdx) => {
      const max = this.rs.get(rowIdx) ?? 0;
      const cols = columns.map((c) => [...c, ...new Array<string>(Math.max(0, max - c.length)).fill("  ")]);
      for (let x = 0; x < max; x++) {
        for (let y = 0; y < cols.length; y++) {
          const str = cols[y]?.[x] ?? "";
          const w = this.cs.get(y) ?? 0;
          let cell: string;
          switch (this.align) {
            case "center":
              cell = pad(str, w);
              break;
            case "right":
              cell = padLeft(str, w);
              break;
            case "left":
              cell = padRight(str, w);
              break;
            default:
              cell = /^-?(?:\d{1,3}(?:,\d{3})*|\d+)(?:\.\d+)?$/.test(str.trim()) ? padLeft(str, w) : padRight(str, w);
          }
          out += `| ${cell} `;
        }
        out += "|\n";
      }
    });
    out += this.line();
    return out;
  }
}

/** renderTable is the etcd printers' recipe: header, rows, right alignment. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const t = new Table();
  t.setHeader(header);
  for (const r of rows) t.append(r);
  t.setAlignment("right");
  return t.render();
}
