// `etcdctl del` (del_command.go): a key, a [key, range_end) range (with the 2-second warning unless
// --range), --prefix, --from-key, --prev-kv.

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goQuote } from "../../../go/go-strconv.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";
import { prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();

/** defineDelCommand declares `del` and its flags (also used by txn request lines). */
export function defineDelCommand(run?: (cmd: Command, args: string[]) => void | Promise<void>): Command {
  const cmd = new Cmd({
    use: "del [options] <key> [range_end]",
    short: "Removes the specified key or range of keys [key, range_end)",
    ...(run ? { run } : {}),
  });
  const f = cmd.flags();
  f.bool("prefix", "", false, "delete keys with matching prefix");
  f.bool("prev-kv", "", false, "return deleted key-value pairs");
  f.bool("from-key", "", false, "delete keys that are greater than or equal to the given key using byte compare");
  f.bool("range", "", false, "delete range of keys");
  return cmd;
}

/** getDelOp is del_command.go's getDelOp (the range warning waits 2 s unless --range is given). */
export async function getDelOp(ctl: Ctl, cmd: Command, args: string[]): Promise<pb.DeleteRangeRequest> {
  const io = ctl.io;
  const f = cmd.flags();
  const prefix = f.getBool("prefix");
  const fromKey = f.getBool("from-key");
  if (args.length === 0 || args.length > 2) {
    exitWithError(io, ExitCode.badArgs, "del command needs one argument as key and an optional argument as range_end");
  }
  if (prefix && fromKey) {
    exitWithError(io, ExitCode.badArgs, "`--prefix` and `--from-key` cannot be set at the same time, choose one");
  }
  const req = pb.DeleteRangeRequest.create();
  let key = enc.encode(args[0]);
  if (args.length > 1) {
    if (prefix || fromKey) {
      exitWithError(
        io,
        ExitCode.badArgs,
        "too many arguments, only accept one argument when `--prefix` or `--from-key` is set",
      );
    }
    req.rangeEnd = enc.encode(args[1]);
    if (!f.getBool("range")) {
      io.stderr(
        `Warning: Keys between ${goQuote(args[0] as string)} and ${goQuote(args[1] as string)} will be deleted. Please interrupt the command within next 2 seconds to cancel. You can provide \`--range\` flag to avoid the delay.\n`,
      );
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  if (prefix) {
    if (key.length === 0) {
      key = new Uint8Array([0]);
      req.rangeEnd = new Uint8Array([0]);
    } else {
      req.rangeEnd = prefixRangeEnd(key);
    }
  }
  if (f.getBool("prev-kv")) req.prevKv = true;
  if (fromKey) {
    if (key.length === 0) key = new Uint8Array([0]);
    req.rangeEnd = new Uint8Array([0]);
  }
  req.key = key;
  return req;
}

/** newDelCommand is `etcdctl del`. */
export function newDelCommand(ctl: Ctl): Command {
  return defineDelCommand(async (cmd, args) => {
    const req = await getDelOp(ctl, cmd, args);
    const { signal, deadlineMs, cancel } = commandCtx(cmd);
    const client = await mustClientFromCmd(ctl, cmd, [["delCommandFunc", "del_command.go:54"]]);
    try {
      ctl.display.del(await client.deleteRange(req, { signal, deadlineMs }));
    } catch (e) {
      exitOnClientError(ctl, e);
    } finally {
      cancel();
    }
  });
}
