// `etcdctl downgrade validate|enable|cancel` (downgrade_command.go).

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";

/** newDowngradeCommand is `etcdctl downgrade`. */
export function newDowngradeCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const dc = new Command({ use: "downgrade <TARGET_VERSION>", short: "Downgrade related commands" });
  const withVersion = (
    use: string,
    short: string,
    action: pb.DowngradeRequest_DowngradeAction,
    line: string,
    show: "downgradeValidate" | "downgradeEnable",
  ) =>
    new Command({
      use,
      short,
      run: async (c, args) => {
        if (args.length < 1) exitWithError(io, ExitCode.badArgs, "TARGET_VERSION not provided");
        if (args.length > 1) exitWithError(io, ExitCode.badArgs, "too many arguments");
        const version = args[0] as string;
        if (version.length === 0) exitWithError(io, ExitCode.badArgs, "target version not provided");
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const cli = await mustClientFromCmd(ctl, c, [
          [show === "downgradeValidate" ? "downgradeValidateCommandFunc" : "downgradeEnableCommandFunc", line],
        ]);
        try {
          ctl.display[show](
            await cli.downgrade(pb.DowngradeRequest.create({ action, version }), { signal, deadlineMs }),
          );
        } catch (e) {
          exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
      },
    });
  dc.addCommand(
    withVersion(
      "validate <TARGET_VERSION>",
      "Validate downgrade capability before starting downgrade",
      pb.DowngradeRequest_DowngradeAction.VALIDATE,
      "downgrade_command.go:88",
      "downgradeValidate",
    ),
    withVersion(
      "enable <TARGET_VERSION>",
      "Start a downgrade action to cluster",
      pb.DowngradeRequest_DowngradeAction.ENABLE,
      "downgrade_command.go:114",
      "downgradeEnable",
    ),
    new Command({
      use: "cancel",
      short: "Cancel the ongoing downgrade action to cluster",
      run: async (c) => {
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const cli = await mustClientFromCmd(ctl, c, [["downgradeCancelCommandFunc", "downgrade_command.go:128"]]);
        try {
          ctl.display.downgradeCancel(
            await cli.downgrade(pb.DowngradeRequest.create({ action: pb.DowngradeRequest_DowngradeAction.CANCEL }), {
              signal,
              deadlineMs,
            }),
          );
        } catch (e) {
          exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
      },
    }),
  );
  return dc;
}
