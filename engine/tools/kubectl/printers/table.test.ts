import { describe, expect, it } from "vitest";
import { addTable, TableWriter, type Table } from "./table.ts";

const table: Table = {
  kind: "Table",
  columnDefinitions: [
    { name: "Name", type: "string", format: "name", priority: 0 },
    { name: "Data", type: "integer", format: "", priority: 0 },
    { name: "Extra", type: "string", format: "", priority: 1 },
  ],
  rows: [
    { cells: ["kube-root-ca.crt", 1, "x"], object: { metadata: { namespace: "default", labels: { b: "2", a: "1" } } } },
  ],
};

describe("table printing", () => {
  it("pads columns to the widest cell plus 3 (at least 6) and decorates like kubectl", () => {
    const tw = new TableWriter();
    addTable(
      tw,
      table,
      { wide: false, noHeaders: false, withNamespace: true, showLabels: true, kindPrefix: "configmap" },
      true,
    );
    expect(tw.flush()).toBe(
      "NAMESPACE   NAME                         DATA   LABELS\ndefault     configmap/kube-root-ca.crt   1      a=1,b=2\n",
    );
  });

  it("remembers column widths across flushes (kubectl get -w)", () => {
    const tw = new TableWriter();
    tw.row(["NAME", "AGE"]);
    tw.row(["a-long-name", "1s"]);
    tw.flush();
    tw.row(["x", "2s"]);
    expect(tw.flush()).toBe("x             2s\n");
  });
});
