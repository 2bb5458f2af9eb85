// etcdutl's output formats (etcdutl/printer*.go) for its two results, a snapshot's status and a file's KV
// hash: simple (comma-separated), fields, json, table (right-aligned), and protobuf, which has no message
// for either result and exits with Go's "marshal unsupported for type" error.

import type { Command } from "../cobra/command.ts";
import { ExitCode, exitWithError } from "../cobra/exit.ts";
import { formatHex } from "../../go/go-strconv.ts";
import { humanizeBytes } from "../../go/humanize.ts";
import type { CliIo } from "../cobra/io.ts";
import { renderTable } from "../cobra/tablewriter.ts";

/** DbStatus is etcdutl's snapshot.Status. */
export interface DbStatus {
  hash: number;
  revision: number;
  totalKey: number;
  totalSize: number;
  /** version is the storage version ("" for a snapshot of a server older than 3.6). */
  version: string;
}

/** DbHashKV is etcdutl's HashKV result. */
export interface DbHashKV {
  hash: number;
  hashRevision: number;
  compactRevision: number;
}

/** UtlPrinter prints one result in the chosen format. */
export interface UtlPrinter {
  dbStatus(s: DbStatus): void;
  dbHashKV(h: DbHashKV): void;
}

function statusRow(s: DbStatus): { hdr: string[]; rows: string[][] } {
  return {
    hdr: ["hash", "revision", "total keys", "total size", "version"],
    rows: [[formatHex(s.hash), String(s.revision), String(s.totalKey), humanizeBytes(s.totalSize), s.version]],
  };
}

function hashRow(h: DbHashKV): { hdr: string[]; rows: string[][] } {
  return {
    hdr: ["hash", "hash revision", "compact revision"],
    rows: [[String(h.hash), String(h.hashRevision), String(h.compactRevision)]],
  };
}

/** newUtlPrinter is etcdutl's NewPrinter; undefined for an unknown format name. */
export function newUtlPrinter(io: CliIo, format: string): UtlPrinter | undefined {
  const out = (s: string) => io.stdout(s);
  switch (format) {
    case "simple":
      return {
        dbStatus: (s) =>
          out(
            `${statusRow(s)
              .rows.map((r) => r.join(", "))
              .join("\n")}\n`,
          ),
        dbHashKV: (h) =>
          out(
            `${hashRow(h)
              .rows.map((r) => r.join(", "))
              .join("\n")}\n`,
          ),
      };
    case "fields":
      return {
        dbStatus: (s) =>
          out(
            `"Hash" : ${s.hash}\n"Revision" : ${s.revision}\n"Keys" : ${s.totalKey}\n"Size" : ${s.totalSize}\n"Version" : ${s.version}\n`,
          ),
        dbHashKV: (h) =>
          out(`"Hash" : ${h.hash}\n"Hash revision" : ${h.hashRevision}\n"Compact revision" : ${h.compactRevision}\n`),
      };
    case "json":
      return {
        dbStatus: (s) =>
          out(
            `{"hash":${s.hash},"revision":${s.revision},"totalKey":${s.totalKey},"totalSize":${s.totalSize},"version":${JSON.stringify(s.version)}}\n`,
          ),
        dbHashKV: (h) =>
          out(`{"hash":${h.hash},"hashRevision":${h.hashRevision},"compactRevision":${h.compactRevision}}\n`),
      };
    case "table":
      return {
        dbStatus: (s) => {
          const t = statusRow(s);
          out(renderTable(t.hdr, t.rows));
        },
        dbHashKV: (h) => {
          const t = hashRow(h);
          out(renderTable(t.hdr, t.rows));
        },
      };
    case "protobuf":
      // Neither result is a protobuf message: printPB fails with Go's %T and %v of the struct.
      return {
        dbStatus: (s) =>
          exitWithError(
            io,
            ExitCode.badFeature,
            `marshal unsupported for type snapshot.Status ({${s.hash} ${s.revision} ${s.totalKey} ${s.totalSize} ${s.version}})`,
          ),
        dbHashKV: (h) =>
          exitWithError(
            io,
            ExitCode.badFeature,
            `marshal unsupported for type etcdutl.HashKV ({${h.hash} ${h.hashRevision} ${h.compactRevision}})`,
          ),
      };
    default:
      return undefined;
  }
}

/** initPrinterFromCmd reads --write-out and exits with "unsupported output format" for an unknown one. */
export function initPrinterFromCmd(io: CliIo, cmd: Command): UtlPrinter {
  const p = newUtlPrinter(io, cmd.flags().getString("write-out"));
  if (!p) return exitWithError(io, ExitCode.badFeature, "unsupported output format");
  return p;
}
