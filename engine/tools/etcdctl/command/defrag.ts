// `etcdctl defrag [--cluster]` (defrag_command.go): one Defragment RPC per endpoint, timed as Go prints it.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText } from "../../cobra/exit.ts";
import { formatGoDurationNs } from "../../../go/go-duration.ts";
import { exitWith } from "../../cobra/io.ts";
import type { Ctl } from "../global.ts";
import { clientConfigFromCmd, commandCtx, mustClient } from "../global.ts";
import { endpointsFromCluster } from "./endpoint.ts";

/** newDefragCommand is `etcdctl defrag`. */
export function newDefragCommand(ctl: Ctl): Command {
  const cmd = new Command({
    use: "defrag",
    short: "Defragments the storage of the etcd members with given endpoints",
    run: async (c) => {
      const io = ctl.io;
      let failures = 0;
      const cfg = await clientConfigFromCmd(ctl, c, [["defragCommandFunc", "defrag_command.go:40"]]);
      for (const ep of await endpointsFromCluster(ctl, c)) {
        const cli = await mustClient(ctl, { ...cfg, endpoints: [ep] });
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const start = io.monoNs();
        try {
          await cli.defragment(ep, { signal, deadlineMs });
          const d = formatGoDurationNs(Number(io.monoNs() - start));
          io.stdout(`Finished defragmenting etcd member[${ep}]. took ${d}\n`);
        } catch (e) {
          const d = formatGoDurationNs(Number(io.monoNs() - start));
          io.stderr(`Failed to defragment etcd member[${ep}]. took ${d}. (${errorText(e)})\n`);
          failures++;
        } finally {
          cancel();
          cli.close();
        }
      }
      if (failures !== 0) exitWith(ExitCode.error);
    },
  });
  cmd.persistentFlags().bool("cluster", "", false, "use all endpoints from the cluster member list");
  return cmd;
}
