// The `table` format (printer_table.go): only member list and the endpoint commands draw tables; every
// other result exits with `Error: table not supported as output format` (code 4).

import { renderTable } from "../../cobra/tablewriter.ts";
import type { CliIo } from "../../cobra/io.ts";
import type { Printer } from "./printer.ts";
import {
  makeEndpointHashKVTable,
  makeEndpointHealthTable,
  makeEndpointStatusTable,
  makeMemberListTable,
  unsupportedPrinter,
} from "./printer.ts";

/** newTablePrinter builds `-w table`. */
export function newTablePrinter(io: CliIo): Printer {
  const draw = ({ hdr, rows }: { hdr: string[]; rows: string[][] }) => io.stdout(renderTable(hdr, rows));
  return {
    ...unsupportedPrinter(io, "table"),
    memberList: (r) => draw(makeMemberListTable(r)),
    endpointHealth: (l) => draw(makeEndpointHealthTable(l)),
    endpointStatus: (l) => draw(makeEndpointStatusTable(l)),
    endpointHashKV: (l) => draw(makeEndpointHashKVTable(l)),
  };
}
