// etcd's pkg/cobrautl exit codes and ExitWithError: `Error: <message>` on stderr, then exit with the code.

import type { CliIo } from "./io.ts";
import { ExitSignal, exitWith } from "./io.ts";

/** ExitCode values are cobrautl's (http://tldp.org/LDP/abs/html/exitcodes.html). */
export const ExitCode = {
  success: 0,
  error: 1,
  badConnection: 2,
  /** txn and watch input errors */
  invalidInput: 3,
  /** a valid flag with an unsupported value */
  badFeature: 4,
  interrupted: 5,
  io: 6,
  badArgs: 128,
  serverError: 4,
  clusterNotHealthy: 5,
} as const;

/** errorText is what Go's `err.Error()` prints for a thrown value. */
export function errorText(err: unknown): string {
  // An exit under way (ExitWithError inside a try block, e.g. an unsupported printer) is never an error
  // message: let it carry on unwinding.
  if (err instanceof ExitSignal) throw err;
  return err instanceof Error ? err.message : String(err);
}

/** exitWithError is cobrautl.ExitWithError: prints `Error: <err>` and exits with `code`. */
export function exitWithError(io: CliIo, code: number, err: unknown): never {
  // An exit already under way (a printer's own ExitWithError inside a try block) is not a new error.
  if (err instanceof ExitSignal) throw err;
  io.stderr(`Error: ${errorText(err)}\n`);
  return exitWith(code);
}
