// tablewriter, tabwriter and the pb progress bar against outputs captured from real etcd tools.

import { describe, expect, it } from "vitest";
import { ProgressBar } from "./progress-bar.ts";
import { tabwrite } from "./tabwriter.ts";
import { renderTable, title, wrapString } from "./tablewriter.ts";

describe("tablewriter", () => {
  it("draws etcdctl 3.4's endpoint status table byte for byte", () => {
    const hdr = [
      "endpoint",
      "ID",
      "version",
      "db size",
      "is leader",
      "is learner",
      "raft term",
      "raft index",
      "raft applied index",
      "errors",
    ];
    const rows = [
      ["127.0.0.1:2379", "41d8b97e89c74911", "3.4.23", "25 kB", "false", "false", "2", "242", "242", ""],
      ["127.0.0.1:22379", "6d630bb38e96feb3", "3.4.23", "25 kB", "true", "false", "2", "242", "242", ""],
    ];
    expect(renderTable(hdr, rows)).toBe(
      [
        "+-----------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------+",
        "|    ENDPOINT     |        ID        | VERSION | DB SIZE | IS LEADER | IS LEARNER | RAFT TERM | RAFT INDEX | RAFT APPLIED INDEX | ERRORS |",
        "+-----------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------+",
        "|  127.0.0.1:2379 | 41d8b97e89c74911 |  3.4.23 |   25 kB |     false |      false |         2 |        242 |                242 |        |",
        "| 127.0.0.1:22379 | 6d630bb38e96feb3 |  3.4.23 |   25 kB |      true |      false |         2 |        242 |                242 |        |",
        "+-----------------+------------------+---------+---------+-----------+------------+-----------+------------+--------------------+--------+",
        "",
      ].join("\n"),
    );
  });

  it("draws an empty table as header and borders", () => {
    expect(renderTable(["endpoint", "hash"], [])).toBe(
      ["+----------+------+", "| ENDPOINT | HASH |", "+----------+------+", "+----------+------+", ""].join("\n"),
    );
  });

  it("wraps long cells at 30 columns and formats headers", () => {
    expect(title("hash_revision")).toBe("HASH REVISION");
    expect(title("3.6")).toBe("3.6");
    // Minimum raggedness: the last line is free, so the first line is filled as far as it goes.
    expect(wrapString("etcdserver: mvcc: database space exceeded", 30)).toEqual([
      "etcdserver: mvcc: database",
      "space exceeded",
    ]);
    const t = renderTable(["endpoint", "errors"], [["127.0.0.1:2379", "etcdserver: mvcc: database space exceeded"]]);
    expect(t).toBe(
      [
        // A wrapped column keeps the 30-column limit as its width; the short row is padded with "  ".
        `+----------------+${"-".repeat(32)}+`,
        `|    ENDPOINT    |${" ".repeat(13)}ERRORS${" ".repeat(13)}|`,
        `+----------------+${"-".repeat(32)}+`,
        `| 127.0.0.1:2379 | ${" ".repeat(4)}etcdserver: mvcc: database |`,
        `|             ${"  "} | ${" ".repeat(16)}space exceeded |`,
        `+----------------+${"-".repeat(32)}+`,
        "",
      ].join("\n"),
    );
  });
});

describe("text/tabwriter (padchar tab)", () => {
  it("aligns a block and restarts after a line without tabs", () => {
    const text = "  -h, --help[=false]\thelp for put\n      --prev-kv[=false]\treturn it\n\nGLOBAL:\n  -w\tx\n";
    expect(tabwrite(text)).toBe(
      "  -h, --help[=false]\thelp for put\n      --prev-kv[=false]\treturn it\n\nGLOBAL:\n  -w\tx\n",
    );
    expect(tabwrite("a\tb\nlonger-than-8\tc\n")).toBe("a\t\tb\nlonger-than-8\tc\n");
  });
});

describe("pb v3 default bar", () => {
  it("renders counters, bar, percent and speed at pb's widths", () => {
    let now = 0;
    const frames: string[] = [];
    const bar = new ProgressBar(60, {
      write: (s) => frames.push(s),
      nowMs: () => now,
      terminal: true,
      widthColumns: 60,
    });
    // Width 60 minus 19 static columns leaves a 41-column bar: brackets and 39 blanks.
    expect(bar.render()).toBe(`0 / 60 [${"_".repeat(39)}] 0.00% ? p/s`);
    now = 1000;
    bar.add(30);
    expect(bar.render()).toBe(`30 / 60 [${"-".repeat(17)}>${"_".repeat(18)}] 50.00% 30 p/s`);
    now = 60_000;
    bar.add(30);
    bar.finish();
    expect(frames.at(-1)).toBe(`\r60 / 60 [${"-".repeat(36)}] 100.00% 1 p/s\n`);
  });
});
