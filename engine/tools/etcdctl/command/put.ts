// `etcdctl put` (put_command.go): value from the second argument or from standard input, a hex lease ID,
// --prev-kv / --ignore-value / --ignore-lease.

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { parseIntBig } from "../../../go/go-strconv.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { argOrStdin, commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";

const putLong = `
Puts the given key into the store.

When <value> begins with '-', <value> is interpreted as a flag.
Insert '--' for workaround:

$ put <key> -- <value>
$ put -- <key> <value>

If <value> isn't given as a command line argument and '--ignore-value' is not specified,
this command tries to read the value from standard input.

If <lease> isn't given as a command line argument and '--ignore-lease' is not specified,
this command tries to read the value from standard input.

For example,
$ cat file | put <key>
will store the content of the file to <key>.
`;

/** definePutCommand declares `put` and its flags (also used by txn request lines). */
export function definePutCommand(run?: (cmd: Command, args: string[]) => void | Promise<void>): Command {
  const cmd = new Cmd({
    use: "put [options] <key> <value> (<value> can also be given from stdin)",
    short: "Puts the given key into the store",
    long: putLong,
    ...(run ? { run } : {}),
  });
  const f = cmd.flags();
  f.string("lease", "", "0", "lease ID (in hexadecimal) to attach to the key");
  f.bool("prev-kv", "", false, "return the previous key-value pair before modification");
  f.bool("ignore-value", "", false, "updates the key using its current value");
  f.bool("ignore-lease", "", false, "updates the key using its current lease");
  return cmd;
}

/** getPutOp is put_command.go's getPutOp; `stdin` supplies the value when it is not an argument. */
export function getPutOp(ctl: Ctl, cmd: Command, args: string[], stdin: (args: string[]) => Uint8Array): pb.PutRequest {
  const enc = new TextEncoder();
  const io = ctl.io;
  const f = cmd.flags();
  const needs = "put command needs 1 argument and input from stdin or 2 arguments";
  if (args.length === 0) exitWithError(io, ExitCode.badArgs, needs);
  const ignoreValue = f.getBool("ignore-value");
  if (ignoreValue && args.length > 1)
    exitWithError(io, ExitCode.badArgs, "put command needs only 1 argument when 'ignore-value' is set");
  let value = enc.encode("");
  if (!ignoreValue) {
    try {
      value = Uint8Array.from(stdin(args));
    } catch {
      exitWithError(io, ExitCode.badArgs, needs);
    }
  }
  let lease: bigint;
  try {
    lease = parseIntBig(f.getString("lease"), 16, 64);
  } catch (e) {
    return exitWithError(io, ExitCode.badArgs, `bad lease ID (${(e as Error).message}), expecting ID in Hex`);
  }
  return pb.PutRequest.create({
    key: enc.encode(args[0]),
    value,
    lease,
    prevKv: f.getBool("prev-kv"),
    ignoreValue,
    ignoreLease: f.getBool("ignore-lease"),
  });
}

/** newPutCommand is `etcdctl put`. */
export function newPutCommand(ctl: Ctl): Command {
  return definePutCommand(async (cmd, args) => {
    const req = getPutOp(ctl, cmd, args, (a) => argOrStdin(ctl.io, a, 1));
    const { signal, deadlineMs, cancel } = commandCtx(cmd);
    const client = await mustClientFromCmd(ctl, cmd, [["putCommandFunc", "put_command.go:73"]]);
    try {
      ctl.display.put(await client.put(req, { signal, deadlineMs }));
    } catch (e) {
      exitOnClientError(ctl, e);
    } finally {
      cancel();
    }
  });
}
