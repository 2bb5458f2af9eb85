// `etcdctl lease grant|revoke|timetolive|list|keep-alive` (lease_command.go). timetolive, list and
// keep-alive use no command timeout and exit 2 on errors, as etcd's do.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { formatHexPadded, parseIntBig } from "../../../go/go-strconv.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, mustClientFromCmd } from "../global.ts";
import { SimplePrinter } from "../printer/printer-simple.ts";
import { leaseFromArgs } from "./util.ts";

/** newLeaseCommand is `etcdctl lease`. */
export function newLeaseCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const lc = new Command({ use: "lease <subcommand>", short: "Lease related commands" });

  const grant = new Command({
    use: "grant <ttl>",
    short: "Creates leases",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "lease grant command needs TTL argument");
      let ttl: bigint;
      try {
        ttl = parseIntBig(args[0] as string, 10, 64);
      } catch (e) {
        return exitWithError(io, ExitCode.badArgs, `bad TTL (${errorText(e)})`);
      }
      const { signal, deadlineMs, cancel } = commandCtx(c);
      const client = await mustClientFromCmd(ctl, c, [["leaseGrantCommandFunc", "lease_command.go:68"]]);
      try {
        ctl.display.grant(await client.leaseGrant(Number(ttl), { signal, deadlineMs }));
      } catch (e) {
        exitWithError(io, ExitCode.error, `failed to grant lease (${errorText(e)})`);
      } finally {
        cancel();
      }
    },
  });

  const revoke = new Command({
    use: "revoke <leaseID>",
    short: "Revokes leases",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "lease revoke command needs 1 argument");
      const id = leaseFromArgs(ctl, args[0] as string);
      const { signal, deadlineMs, cancel } = commandCtx(c);
      const client = await mustClientFromCmd(ctl, c, [["leaseRevokeCommandFunc", "lease_command.go:96"]]);
      try {
        ctl.display.revoke(id, await client.leaseRevoke(id, { signal, deadlineMs }));
      } catch (e) {
        exitWithError(io, ExitCode.error, `failed to revoke lease (${errorText(e)})`);
      } finally {
        cancel();
      }
    },
  });

  const timetolive = new Command({
    use: "timetolive <leaseID> [options]",
    short: "Get lease information",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "lease timetolive command needs lease ID as argument");
      const keys = c.flags().getBool("keys");
      const client = await mustClientFromCmd(ctl, c, [["leaseTimeToLiveCommandFunc", "lease_command.go:128"]]);
      const id = leaseFromArgs(ctl, args[0] as string);
      try {
        ctl.display.timeToLive(await client.leaseTimeToLive(id, keys, {}), keys);
      } catch (e) {
        exitWithError(io, ExitCode.badConnection, e);
      }
    },
  });
  timetolive.flags().bool("keys", "", false, "Get keys attached to this lease");

  const list = new Command({
    use: "list",
    short: "List all active leases",
    run: async (c) => {
      const client = await mustClientFromCmd(ctl, c, [["leaseListCommandFunc", "lease_command.go:147"]]);
      try {
        ctl.display.leases(await client.leaseLeases({}));
      } catch (e) {
        exitWithError(io, ExitCode.badConnection, e);
      }
    },
  });

  const keepAlive = new Command({
    use: "keep-alive [options] <leaseID>",
    short: "Keeps leases alive (renew)",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "lease keep-alive command needs lease ID as argument");
      const id = leaseFromArgs(ctl, args[0] as string);
      if (c.flags().getBool("once")) {
        const client = await mustClientFromCmd(ctl, c, [["leaseKeepAliveCommandFunc", "lease_command.go:179"]]);
        try {
          ctl.display.keepAlive(await client.leaseKeepAliveOnce(id, {}));
        } catch (e) {
          exitWithError(io, ExitCode.badConnection, e);
        }
        return;
      }
      const client = await mustClientFromCmd(ctl, c, [["leaseKeepAliveCommandFunc", "lease_command.go:187"]]);
      try {
        for await (const resp of client.leaseKeepAlive(id)) ctl.display.keepAlive(resp);
      } catch (e) {
        exitWithError(io, ExitCode.badConnection, e);
      }
      if (ctl.display instanceof SimplePrinter)
        io.stdout(`lease ${formatHexPadded(id, 16, true)} expired or revoked.\n`);
    },
  });
  keepAlive
    .flags()
    .bool("once", "", false, "Resets the keep-alive time to its original value and cobrautl.Exits immediately");

  lc.addCommand(grant, revoke, timetolive, list, keepAlive);
  return lc;
}
