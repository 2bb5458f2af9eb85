// kubectl's table output: Go's text/tabwriter as kubectl configures it (minwidth 6, padding 3, padded with
// spaces, RememberWidths so `get -w` rows keep the columns of the header above them) and the printing of a
// server-side Table (meta.k8s.io/v1): upper-cased column names, priority-0 columns unless -o wide, NAMESPACE
// first with -A, LABELS last with --show-labels, `kind/name` names when several types are printed.

import type { JsonValue } from "../../../kube/api/object.ts";
import { goFormatFloatG } from "./yaml.ts";

const minWidth = 6;
const padding = 3;

/** TableWriter collects rows of cells and aligns them like kubectl's tabwriter. */
export class TableWriter {
  private rows: string[][] = [];
  private widths: number[] = [];

  row(cells: string[]): void {
    this.rows.push(cells);
  }

  /** flush returns the aligned text of the rows added since the last flush (widths are remembered). */
  flush(): string {
    for (const r of this.rows) {
      r.slice(0, -1).forEach((c, i) => {
        const w = Math.max(minWidth, [...c].length + padding);
        if (w > (this.widths[i] ?? 0)) this.widths[i] = w;
      });
    }
    const out = this.rows
      .map(
        (r) =>
          r
            .map((c, i) => (i < r.length - 1 ? c + " ".repeat((this.widths[i] as number) - [...c].length) : c))
            .join("") + "\n",
      )
      .join("");
    this.rows = [];
    return out;
  }

  /** resetWidths forgets remembered widths (kubectl does between resource types). */
  resetWidths(): void {
    this.widths = [];
  }
}

/** Table is metav1.Table as the server sends it. */
export interface Table {
  kind: "Table";
  metadata?: { resourceVersion?: string; continue?: string };
  columnDefinitions: { name: string; type: string; format: string; priority: number }[];
  rows: {
    cells: JsonValue[];
    object?: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } };
  }[];
}

/** TableOptions are the decorations kubectl adds to a server Table. */
export interface TableOptions {
  wide: boolean;
  noHeaders: boolean;
  withNamespace: boolean;
  showLabels: boolean;
  /** labelColumns are -L keys, each printed as its own column. */
  labelColumns?: string[];
  /** kindPrefix is `pod` or `deployment.apps` when names print as kind/name. */
  kindPrefix?: string;
}

/** formatLabels is labels.FormatLabels: sorted `k=v` joined by commas, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${(labels as Record<string, string>)[k]}`).join(",");
}

function cellText(c: JsonValue): string {
  if (c === null) return "";
  if (typeof c === "string") {
    const i = c.search(/[\f\n\r]/);
    return i >= 0 ? `${c.slice(0, i)}...` : c;
  }
  if (typeof c === "number") return Number.isInteger(c) ? String(c) : goFormatFloatG(c);
  if (typeof c === "boolean") return String(c);
  return JSON.stringify(c);
}

/** tableRows adds a Table's header (unless disabled or already printed) and rows to a TableWriter. */
export function addTable(tw: TableWriter, t: Table, o: TableOptions, header: boolean): void {
  const cols = t.columnDefinitions.map((c, i) => ({ ...c, i })).filter((c) => o.wide || c.priority === 0);
  const nameCol = o.kindPrefix ? t.columnDefinitions.findIndex((c) => c.format === "name" && c.type === "string") : -1;
  if (header && !o.noHeaders && t.rows.length > 0) {
    const h = cols.map((c) => c.name.toUpperCase());
    if (o.withNamespace) h.unshift("NAMESPACE");
    for (const l of o.labelColumns ?? []) h.push((l.split("/").pop() as string).toUpperCase());
    if (o.showLabels) h.push("LABELS");
    tw.row(h);
  }
  for (const r of t.rows) {
    const cells = cols.map((c) => {
      const v = r.cells[c.i] ?? null;
      return c.i === nameCol ? `${o.kindPrefix}/${cellText(v)}` : cellText(v);
    });
    if (o.withNamespace) cells.unshift(r.object?.metadata?.namespace ?? "");
    for (const l of o.labelColumns ?? []) cells.push(r.object?.metadata?.labels?.[l] ?? "");
    if (o.showLabels) cells.push(formatLabels(r.object?.metadata?.labels));
    tw.row(cells);
  }
}
