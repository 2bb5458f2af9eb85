// NewPrinter: the `-w` value picks the printer; an unknown value yields none (the caller exits with
// "unsupported output format", code 4).

import type { CliIo } from "../../cobra/io.ts";
import type { Printer } from "./printer.ts";
import { newFieldsPrinter } from "./printer-fields.ts";
import { newJsonPrinter } from "./printer-json.ts";
import { newProtobufPrinter } from "./printer-protobuf.ts";
import { SimplePrinter } from "./printer-simple.ts";
import { newTablePrinter } from "./printer-table.ts";

/** newPrinter is printer.go's NewPrinter. */
export function newPrinter(io: CliIo, format: string, isHex: boolean): Printer | undefined {
  switch (format) {
    case "simple":
      return new SimplePrinter(io, isHex);
    case "fields":
      return newFieldsPrinter(io, isHex);
    case "json":
      return newJsonPrinter(io, isHex);
    case "protobuf":
      return newProtobufPrinter(io);
    case "table":
      return newTablePrinter(io);
  }
  return undefined;
}
