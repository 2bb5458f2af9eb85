// Go's text/tabwriter, as etcd's help printer configures it (minwidth 0, tabwidth 8, padding 1, padchar
// '\t', no flags). etcdctl's NAME/USAGE/OPTIONS screens owe their exact tab runs to it, so we port its
// column-block algorithm rather than approximate it: cells end at '\t', a line without tabs ends the block
// (and flushes), and each column's width is the widest cell plus padding, rounded up to whole tab stops.

/** TabwriterOptions are text/tabwriter's Init parameters (flags other than none are not needed here). */
export interface TabwriterOptions {
  minwidth: number;
  tabwidth: number;
  padding: number;
  padchar: string;
}

interface Cell {
  text: string;
  width: number;
}

/** etcdHelpTabwriter is the configuration of etcd's cobrautl usage printer. */
export const etcdHelpTabwriter: TabwriterOptions = { minwidth: 0, tabwidth: 8, padding: 1, padchar: "\t" };

/** runeCount counts code points (Go's tabwriter measures cells in runes, not display columns). */
function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * tabwrite formats `text` as a text/tabwriter Writer followed by Flush would. Tab-terminated cells are
 * aligned per column block; the text after the last tab of a line is not part of any column.
 */
export function tabwrite(text: string, opts: TabwriterOptions = etcdHelpTabwriter): string {
  let out = "";
  let lines: Cell[][] = [[]];
  let cell = "";
  const flush = () => {
    out += format(lines, opts);
    lines = [[]];
  };
  for (const ch of text) {
    if (ch === "\t" || ch === "\n") {
      const line = lines[lines.length - 1] as Cell[];
      line.push({ text: cell, width: runeCount(cell) });
      cell = "";
      if (ch === "\n") {
        const ncells = line.length;
        lines.push([]);
        // A line with a single cell cannot affect the columns below it: the block ends here.
        if (ncells === 1) flush();
      }
    } else {
      cell += ch;
    }
  }
  // Flush: the unterminated trailing cell belongs to the last line.
  (lines[lines.length - 1] as Cell[]).push({ text: cell, width: runeCount(cell) });
  out += format(lines, opts, true);
  return out;
}

function format(lines: Cell[][], opts: TabwriterOptions, final = false): string {
  // The last entry of `lines` is the (possibly empty) line being built; it has no newline yet.
  const complete = final ? lines : lines.slice(0, -1);
  let out = "";
  const widths: number[] = [];

  const writeLines = (line0: number, line1: number) => {
    for (let i = line0; i < line1; i++) {
      const line = complete[i] as Cell[];
      line.forEach((c, j) => {
        out += c.text;
        if (j < widths.length && j < line.length - 1) out += padding(c.width, widths[j] as number, opts);
      });
      if (i + 1 < complete.length || !final) out += "\n";
    }
  };

  const formatColumns = (line0: number, line1: number): void => {
    const column = widths.length;
    let start = line0;
    for (let cur = line0; cur < line1; cur++) {
      if (column >= (complete[cur] as Cell[]).length - 1) continue;
      // This line has a cell in `column`: print the lines above it, then find the block's extent.
      writeLines(start, cur);
      start = cur;
      let width = opts.minwidth;
      let end = cur;
      for (; end < line1; end++) {
        const line = complete[end] as Cell[];
        if (column >= line.length - 1) break;
        const w = (line[column] as Cell).width + opts.padding;
        if (w > width) width = w;
      }
      widths.push(width);
      formatColumns(start, end);
      widths.pop();
      start = end;
      cur = end - 1;
    }
    writeLines(start, line1);
  };

  formatColumns(0, complete.length);
  return out;
}

function padding(textw: number, cellw: number, opts: TabwriterOptions): string {
  if (opts.padchar === "\t") {
    const cw = Math.ceil(cellw / opts.tabwidth) * opts.tabwidth;
    const n = cw - textw;
    return "\t".repeat(Math.ceil(n / opts.tabwidth));
  }
  return opts.padchar.repeat(cellw - textw);
}
