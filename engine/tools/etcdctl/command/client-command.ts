// The shape every `etcdctl role` and `etcdctl user` subcommand has in role_command.go and user_command.go:
// check the argument count (exit 128 with the command's own text), turn the arguments into a request
// (reading a password, parsing a permission — before any client is made), make the client, send one RPC
// with no command timeout and display its answer; a client error exits 1 with its text.

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import type { FlagSet } from "../../cobra/flags.ts";
import type { CtlClient } from "../client-port.ts";
import type { Ctl, GoFrame } from "../global.ts";
import { exitOnClientError, mustClientFromCmd } from "../global.ts";

/** ClientCommandSpec is one subcommand: its cobra wiring, its argument rule, its request and its RPC. */
export interface ClientCommandSpec<Req> {
  use: string;
  short: string;
  /** nArgs is the exact argument count, or `{ min }` for commands with optional trailing arguments. */
  nArgs: number | { min: number };
  /** argsError is etcd's text when the count is wrong (`role add command requires role name as its argument`). */
  argsError: string;
  /** site is the Go frame of the command's mustClientFromCmd call (`["roleAddCommandFunc", "role_command.go:113"]`). */
  site: GoFrame;
  /** flags declares the subcommand's own flags. */
  flags?: (f: FlagSet) => void;
  /** parse builds the request from the arguments; it runs before the client is made, as in etcd. */
  parse: (args: string[], c: Command) => Req | Promise<Req>;
  /** call sends the request and displays the answer. */
  call: (cli: CtlClient, req: Req, c: Command) => Promise<void>;
}

/** clientCommand builds the Command a ClientCommandSpec describes. */
export function clientCommand<Req>(ctl: Ctl, spec: ClientCommandSpec<Req>): Command {
  const cmd = new Command({
    use: spec.use,
    short: spec.short,
    run: async (c, args) => {
      const n = spec.nArgs;
      if (typeof n === "number" ? args.length !== n : args.length < n.min)
        exitWithError(ctl.io, ExitCode.badArgs, spec.argsError);
      const req = await spec.parse(args, c);
      const cli = await mustClientFromCmd(ctl, c, [spec.site]);
      try {
        await spec.call(cli, req, c);
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });
  spec.flags?.(cmd.flags());
  return cmd;
}

/** firstArg is the `parse` of a subcommand that takes one name. */
export const firstArg = (args: string[]): string => args[0] as string;

/** noArgs is the `parse` of a subcommand that takes no arguments. */
export const noArgs = (): void => undefined;
