// `etcdctl elect <name> [proposal]` (elect_command.go): campaign and hold leadership until interrupted, or
// with -l observe the leader and print each change.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { exitWith } from "../../cobra/io.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { Election, Session } from "../concurrency.ts";
import type { Ctl } from "../global.ts";
import { mustClientFromCmd } from "../global.ts";
import { untilSignal } from "./lock.ts";

/** newElectCommand is `etcdctl elect`. */
export function newElectCommand(ctl: Ctl): Command {
  const cmd = new Command({
    use: "elect <election-name> [proposal]",
    short: "Observes and participates in leader election",
    run: async (c, args) => {
      const io = ctl.io;
      if (args.length !== 1 && args.length !== 2) {
        exitWithError(io, ExitCode.badArgs, "elect takes one election name argument and an optional proposal argument");
      }
      const client = await mustClientFromCmd(ctl, c, [["electCommandFunc", "elect_command.go:48"]]);
      const listen = c.flags().getBool("listen");
      if (args.length === 1 && !listen) exitWithError(io, ExitCode.badArgs, "no proposal argument but -l not set");
      if (args.length === 2 && listen) exitWithError(io, ExitCode.badArgs, "proposal given but -l is set");
      const fail = (e: unknown): never => exitWithError(io, ExitCode.error, errorText(e));
      const sig = untilSignal();
      const abort = new AbortController();
      void sig.promise.then(() => abort.abort(new Error("context canceled")));
      try {
        let s: Session;
        try {
          s = await Session.create(client, 60, {});
        } catch (e) {
          return fail(e);
        }
        const e = new Election(s, args[0] as string);
        if (listen) {
          for await (const resp of e.observe(abort.signal)) ctl.display.get(resp);
          if (!abort.signal.aborted) fail("elect: observer lost");
          exitWith(0);
        }
        try {
          await e.campaign(args[1] as string, { signal: abort.signal });
        } catch (err) {
          return fail(err);
        }
        let resp: pb.RangeResponse;
        try {
          resp = await client.range(pb.RangeRequest.create({ key: new TextEncoder().encode(e.leaderKey) }), {
            signal: abort.signal,
          });
        } catch (err) {
          return fail(err);
        }
        ctl.display.get(resp);
        const ended = await Promise.race([
          sig.promise.then(() => "signal" as const),
          s.done().then(() => "expired" as const),
        ]);
        if (ended === "expired") fail("elect: session expired");
        try {
          await e.resign({});
        } catch (err) {
          fail(err);
        }
      } finally {
        sig.dispose();
      }
    },
  });
  cmd.flags().bool("listen", "l", false, "observation mode");
  return cmd;
}
