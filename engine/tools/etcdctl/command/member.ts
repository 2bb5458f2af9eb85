// `etcdctl member add|remove|update|list|promote` (member_command.go). `member add` in simple format also
// prints the ETCD_* lines to start the new member with.

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goQuote } from "../../../go/go-strconv.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";
import { SimplePrinter } from "../printer/printer-simple.ts";
import { isSerializable, parseMemberID } from "./util.ts";

/** newMemberCommand is `etcdctl member`. */
export function newMemberCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const mc = new Command({ use: "member <subcommand>", short: "Membership related commands" });

  const add = new Command({
    use: "add <memberName> [options]",
    short: "Adds a member into the cluster",
    run: async (c, args) => {
      if (args.length < 1) exitWithError(io, ExitCode.badArgs, "member name not provided");
      if (args.length > 1) {
        let ev = "too many arguments";
        for (const s of args) if (s.toLowerCase().startsWith("http")) ev += `, did you mean --peer-urls=${s}`;
        exitWithError(io, ExitCode.badArgs, ev);
      }
      const name = args[0] as string;
      const peerURLs = c.flags().getString("peer-urls");
      if (peerURLs.length === 0) exitWithError(io, ExitCode.badArgs, "member peer urls not provided");
      const urls = peerURLs.split(",");
      const { signal, deadlineMs, cancel } = commandCtx(c);
      const cli = await mustClientFromCmd(ctl, c, [["memberAddCommandFunc", "member_command.go:145"]]);
      let resp;
      try {
        resp = await cli.memberAdd(urls, c.flags().getBool("learner"), { signal, deadlineMs });
      } catch (e) {
        return exitOnClientError(ctl, e);
      } finally {
        cancel();
      }
      const newID = resp.member?.ID;
      ctl.display.memberAdd(resp);
      if (ctl.display instanceof SimplePrinter) {
        const conf: string[] = [];
        for (const m of resp.members) {
          for (const u of m.peerURLs) conf.push(`${m.ID === newID ? name : m.name}=${u}`);
        }
        io.stdout("\n");
        io.stdout(`ETCD_NAME=${goQuote(name)}\n`);
        io.stdout(`ETCD_INITIAL_CLUSTER=${goQuote(conf.join(","))}\n`);
        io.stdout(`ETCD_INITIAL_ADVERTISE_PEER_URLS=${goQuote(peerURLs)}\n`);
        io.stdout(`ETCD_INITIAL_CLUSTER_STATE="existing"\n`);
      }
    },
  });
  add.flags().string("peer-urls", "", "", "comma separated peer URLs for the new member.");
  add.flags().bool("learner", "", false, "indicates if the new member is raft learner");

  const withID = (
    use: string,
    short: string,
    long: string,
    act: (c: Command, id: bigint, ctx: { signal: AbortSignal; deadlineMs: number }) => Promise<void>,
  ) =>
    new Command({
      use,
      short,
      long,
      run: async (c, args) => {
        if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "member ID is not provided");
        const id = parseMemberID(ctl, args[0] as string);
        if (use.startsWith("update") && c.flags().getString("peer-urls").length === 0) {
          exitWithError(io, ExitCode.badArgs, "member peer urls not provided");
        }
        const { signal, deadlineMs, cancel } = commandCtx(c);
        try {
          await act(c, id, { signal, deadlineMs });
        } finally {
          cancel();
        }
      },
    });

  const remove = withID("remove <memberID>", "Removes a member from the cluster", "", async (c, id, ctx) => {
    const cli = await mustClientFromCmd(ctl, c, [["memberRemoveCommandFunc", "member_command.go:195"]]);
    try {
      ctl.display.memberRemove(id, await cli.memberRemove(id, ctx));
    } catch (e) {
      exitOnClientError(ctl, e);
    }
  });

  const update = withID("update <memberID> [options]", "Updates a member in the cluster", "", async (c, id, ctx) => {
    const cli = await mustClientFromCmd(ctl, c, [["memberUpdateCommandFunc", "member_command.go:221"]]);
    try {
      ctl.display.memberUpdate(id, await cli.memberUpdate(id, c.flags().getString("peer-urls").split(","), ctx));
    } catch (e) {
      exitOnClientError(ctl, e);
    }
  });
  update.flags().string("peer-urls", "", "", "comma separated peer URLs for the updated member.");

  const list = new Command({
    use: "list",
    short: "Lists all members in the cluster",
    long: `When --write-out is set to simple, this command prints out comma-separated member lists for each endpoint.
The items in the lists are ID, Status, Name, Peer Addrs, Client Addrs, Is Learner.
`,
    run: async (c) => {
      // etcd reports the get command's --consistency value ("l") in this error: a shared package variable.
      const serializable = isSerializable(ctl, c.flags().getString("consistency"), "l");
      const { signal, deadlineMs, cancel } = commandCtx(c);
      const cli = await mustClientFromCmd(ctl, c, [["memberListCommandFunc", "member_command.go:237"]]);
      try {
        ctl.display.memberList(await cli.memberList(!serializable, { signal, deadlineMs }));
      } catch (e) {
        exitOnClientError(ctl, e);
      } finally {
        cancel();
      }
    },
  });
  list.flags().string("consistency", "", "l", "Linearizable(l) or Serializable(s)");

  const promote = withID(
    "promote <memberID>",
    "Promotes a non-voting member in the cluster",
    "Promotes a non-voting learner member to a voting one in the cluster.\n",
    async (c, id, ctx) => {
      const cli = await mustClientFromCmd(ctl, c, [["memberPromoteCommandFunc", "member_command.go:258"]]);
      try {
        ctl.display.memberPromote(id, await cli.memberPromote(id, ctx));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );

  mc.addCommand(add, remove, update, list, promote);
  return mc;
}
