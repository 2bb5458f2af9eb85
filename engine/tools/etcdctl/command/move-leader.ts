// `etcdctl move-leader` (move_leader_command.go): find the leader among --endpoints by Status, then ask it
// to transfer leadership.

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { formatStringList, parseUintBig } from "../../../go/go-strconv.ts";
import type { CtlClient } from "../client-port.ts";
import type { Ctl } from "../global.ts";
import { clientConfigFromCmd, commandCtx, exitOnClientError, mustClient } from "../global.ts";

/** newMoveLeaderCommand is `etcdctl move-leader <transferee-member-id>`. */
export function newMoveLeaderCommand(ctl: Ctl): Command {
  return new Command({
    use: "move-leader <transferee-member-id>",
    short: "Transfers leadership to another etcd cluster member.",
    run: async (c, args) => {
      const io = ctl.io;
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "move-leader command needs 1 argument");
      let target: bigint;
      try {
        target = parseUintBig(args[0] as string, 16, 64);
      } catch (e) {
        return exitWithError(io, ExitCode.badArgs, e);
      }
      const cfg = await clientConfigFromCmd(ctl, c, [["transferLeadershipCommandFunc", "move_leader_command.go:47"]]);
      const eps = (await mustClient(ctl, cfg)).endpoints();
      const { signal, deadlineMs, cancel } = commandCtx(c);
      let leaderCli: CtlClient | undefined;
      let leaderId = 0n;
      for (const ep of eps) {
        const cli = await mustClient(ctl, { ...cfg, endpoints: [ep] });
        let resp;
        try {
          resp = await cli.status(ep, { signal, deadlineMs });
        } catch (e) {
          return exitOnClientError(ctl, e);
        }
        if (resp.header?.memberId === resp.leader) {
          leaderCli = cli;
          leaderId = resp.leader;
          break;
        }
      }
      if (!leaderCli) exitWithError(io, ExitCode.badArgs, `no leader endpoint given at ${formatStringList(eps)}`);
      try {
        const resp = await leaderCli.moveLeader(target, { signal, deadlineMs });
        ctl.display.moveLeader(leaderId, target, resp);
      } catch (e) {
        exitOnClientError(ctl, e);
      } finally {
        cancel();
      }
    },
  });
}
