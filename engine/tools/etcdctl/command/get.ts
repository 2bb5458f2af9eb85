// `etcdctl get` (get_command.go): flags, argument checks in etcd's order, the RangeRequest clientv3 builds
// from them (prefix/from-key rules, key-sorted ascending sent as "no sort"), and the format checks
// (--count-only only with fields, --print-value-only only with simple).

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";
import { SimplePrinter } from "../printer/printer-simple.ts";
import { isSerializable, prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();

/** defineGetCommand declares `get` and its flags (also used by txn request lines). */
export function defineGetCommand(run?: (cmd: Command, args: string[]) => void | Promise<void>): Command {
  const cmd = new Cmd({
    use: "get [options] <key> [range_end]",
    short: "Gets the key or a range of keys",
    ...(run ? { run } : {}),
  });
  const f = cmd.flags();
  f.string("consistency", "", "l", "Linearizable(l) or Serializable(s)");
  f.string("order", "", "", "Order of results; ASCEND or DESCEND (ASCEND by default)");
  f.string("sort-by", "", "", "Sort target; CREATE, KEY, MODIFY, VALUE, or VERSION");
  f.int64("limit", "", 0, "Maximum number of results");
  f.bool("prefix", "", false, "Get keys with matching prefix");
  f.bool("from-key", "", false, "Get keys that are greater than or equal to the given key using byte compare");
  f.int64("rev", "", 0, "Specify the kv revision");
  f.bool("keys-only", "", false, "Get only the keys");
  f.bool("count-only", "", false, "Get only the count");
  f.bool("print-value-only", "", false, 'Only write values when using the "simple" output format');
  f.int64("min-create-rev", "", 0, "Minimum create revision");
  f.int64("max-create-rev", "", 0, "Maximum create revision");
  f.int64("min-mod-rev", "", 0, "Minimum modification revision");
  f.int64("max-mod-rev", "", 0, "Maximum modification revision");
  return cmd;
}

const sortOrders: Record<string, pb.RangeRequest_SortOrder> = {
  ASCEND: pb.RangeRequest_SortOrder.ASCEND,
  DESCEND: pb.RangeRequest_SortOrder.DESCEND,
  "": pb.RangeRequest_SortOrder.NONE,
};

const sortTargets: Record<string, pb.RangeRequest_SortTarget> = {
  CREATE: pb.RangeRequest_SortTarget.CREATE,
  KEY: pb.RangeRequest_SortTarget.KEY,
  MODIFY: pb.RangeRequest_SortTarget.MOD,
  VALUE: pb.RangeRequest_SortTarget.VALUE,
  VERSION: pb.RangeRequest_SortTarget.VERSION,
  "": pb.RangeRequest_SortTarget.KEY,
};

/** getGetOp is get_command.go's getGetOp: validation, then the request clientv3's OpGet would send. */
export function getGetOp(ctl: Ctl, cmd: Command, args: string[]): pb.RangeRequest {
  const io = ctl.io;
  const f = cmd.flags();
  const prefix = f.getBool("prefix");
  const fromKey = f.getBool("from-key");
  const keysOnly = f.getBool("keys-only");
  const countOnly = f.getBool("count-only");
  if (args.length === 0) {
    exitWithError(io, ExitCode.badArgs, "get command needs one argument as key and an optional argument as range_end");
  }
  if (prefix && fromKey) {
    exitWithError(io, ExitCode.badArgs, "`--prefix` and `--from-key` cannot be set at the same time, choose one");
  }
  if (keysOnly && countOnly) {
    exitWithError(io, ExitCode.badArgs, "`--keys-only` and `--count-only` cannot be set at the same time, choose one");
  }
  const req = pb.RangeRequest.create();
  req.serializable = isSerializable(ctl, f.getString("consistency"));
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
  }
  req.limit = f.getInt("limit");
  const rev = f.getInt("rev");
  if (rev > 0) req.revision = rev;

  const orderArg = f.getString("order");
  const order = sortOrders[orderArg.toUpperCase()];
  if (order === undefined) exitWithError(io, ExitCode.badFeature, `bad sort order ${orderArg}`);
  const targetArg = f.getString("sort-by");
  const target = sortTargets[targetArg.toUpperCase()];
  if (target === undefined) exitWithError(io, ExitCode.badFeature, `bad sort target ${targetArg}`);
  // clientv3.WithSort: the server already returns keys in ascending order, so that pair means "no sort".
  req.sortTarget = target;
  req.sortOrder =
    target === pb.RangeRequest_SortTarget.KEY && order === pb.RangeRequest_SortOrder.ASCEND
      ? pb.RangeRequest_SortOrder.NONE
      : order;

  if (prefix) {
    if (key.length === 0) {
      key = new Uint8Array([0]);
      req.rangeEnd = new Uint8Array([0]);
    } else {
      req.rangeEnd = prefixRangeEnd(key);
    }
  }
  if (fromKey) {
    if (key.length === 0) key = new Uint8Array([0]);
    req.rangeEnd = new Uint8Array([0]);
  }
  req.key = key;
  if (keysOnly) req.keysOnly = true;
  if (countOnly) req.countOnly = true;
  const minCreate = f.getInt("min-create-rev");
  const maxCreate = f.getInt("max-create-rev");
  const minMod = f.getInt("min-mod-rev");
  const maxMod = f.getInt("max-mod-rev");
  if (minCreate > 0) req.minCreateRevision = minCreate;
  if (maxCreate > 0) {
    if (minCreate > maxCreate) {
      exitWithError(io, ExitCode.badFeature, `getMinCreateRev(=${minCreate}) > getMaxCreateRev(=${maxCreate})`);
    }
    req.maxCreateRevision = maxCreate;
  }
  if (minMod > 0) req.minModRevision = minMod;
  if (maxMod > 0) {
    if (minMod > maxMod) exitWithError(io, ExitCode.badFeature, `getMinModRev(=${minMod}) > getMaxModRev(=${maxMod})`);
    req.maxModRevision = maxMod;
  }
  return req;
}

/** newGetCommand is `etcdctl get`. */
export function newGetCommand(ctl: Ctl): Command {
  return defineGetCommand(async (cmd, args) => {
    const req = getGetOp(ctl, cmd, args);
    const { signal, deadlineMs, cancel } = commandCtx(cmd);
    const client = await mustClientFromCmd(ctl, cmd, [["getCommandFunc", "get_command.go:84"]]);
    let resp: pb.RangeResponse;
    try {
      resp = await client.range(req, { signal, deadlineMs });
    } catch (e) {
      return exitOnClientError(ctl, e);
    } finally {
      cancel();
    }
    const f = cmd.flags();
    if (f.getBool("count-only") && ctl.format !== "fields") {
      exitWithError(ctl.io, ExitCode.badArgs, "--count-only is only for `--write-out=fields`");
    }
    if (f.getBool("print-value-only")) {
      if (!(ctl.display instanceof SimplePrinter)) {
        exitWithError(ctl.io, ExitCode.badArgs, "print-value-only is only for `--write-out=simple`");
      }
      ctl.display.valueOnly = true;
    }
    ctl.display.get(resp);
  });
}
