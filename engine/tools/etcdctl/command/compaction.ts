// `etcdctl compaction` (compaction_command.go).

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { parseIntBig } from "../../../go/go-strconv.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";

/** newCompactionCommand is `etcdctl compaction [--physical] <revision>`. */
export function newCompactionCommand(ctl: Ctl): Command {
  const cmd = new Command({
    use: "compaction [options] <revision>",
    short: "Compacts the event history in etcd",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(ctl.io, ExitCode.badArgs, "compaction command needs 1 argument");
      let rev: bigint;
      try {
        rev = parseIntBig(args[0] as string, 10, 64);
      } catch (e) {
        return exitWithError(ctl.io, ExitCode.error, e);
      }
      const client = await mustClientFromCmd(ctl, c, [["compactionCommandFunc", "compaction_command.go:56"]]);
      const { signal, deadlineMs, cancel } = commandCtx(c);
      try {
        await client.compact(
          pb.CompactionRequest.create({ revision: Number(rev), physical: c.flags().getBool("physical") }),
          { signal, deadlineMs },
        );
      } catch (e) {
        exitOnClientError(ctl, e);
      } finally {
        cancel();
      }
      ctl.io.stdout(`compacted revision ${rev}\n`);
    },
  });
  cmd.flags().bool("physical", "", false, "'true' to wait for compaction to physically remove all old revisions");
  return cmd;
}
