// `etcdctl alarm list|disarm` (alarm_command.go).

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";

/** newAlarmCommand is `etcdctl alarm`. */
export function newAlarmCommand(ctl: Ctl): Command {
  const ac = new Command({ use: "alarm <subcommand>", short: "Alarm related commands" });
  const sub = (use: string, short: string, action: pb.AlarmRequest_AlarmAction, line: string) =>
    new Command({
      use,
      short,
      run: async (c, args) => {
        if (args.length !== 0) exitWithError(ctl.io, ExitCode.badArgs, `alarm ${use} command accepts no arguments`);
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const client = await mustClientFromCmd(ctl, c, [
          [`alarm${use === "list" ? "List" : "Disarm"}CommandFunc`, line],
        ]);
        try {
          const opts = { signal, deadlineMs };
          const all = { memberID: 0n, alarm: pb.AlarmType.NONE };
          ctl.display.alarm(
            action === pb.AlarmRequest_AlarmAction.DEACTIVATE
              ? await client.alarmDisarm(all, opts)
              : await client.alarm(pb.AlarmRequest.create({ action }), opts),
          );
        } catch (e) {
          exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
      },
    });
  ac.addCommand(
    sub("disarm", "Disarms all alarms", pb.AlarmRequest_AlarmAction.DEACTIVATE, "alarm_command.go:54"),
    sub("list", "Lists all alarms", pb.AlarmRequest_AlarmAction.GET, "alarm_command.go:77"),
  );
  return ac;
}
