// `etcdctl auth enable|disable|status` (auth_command.go). `auth enable` creates the root role and grants
// it to root when the server says the root role is missing, then retries, as etcd does.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import type * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { commandCtx, exitOnClientError, mustClientFromCmd } from "../global.ts";

/** newAuthCommand is `etcdctl auth`. */
export function newAuthCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const ac = new Command({ use: "auth <enable or disable>", short: "Enable or disable authentication" });
  const noArgs = (name: string, args: string[]) => {
    if (args.length !== 0) exitWithError(io, ExitCode.badArgs, `auth ${name} command does not accept any arguments`);
  };
  ac.addCommand(
    new Command({
      use: "enable",
      short: "Enables authentication",
      run: async (c, args) => {
        noArgs("enable", args);
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const cli = await mustClientFromCmd(ctl, c, [["authEnableCommandFunc", "auth_command.go:80"]]);
        try {
          for (;;) {
            try {
              await cli.authEnable({ signal, deadlineMs });
              break;
            } catch (e) {
              if (errorText(e) !== "etcdserver: root user does not have root role") throw e;
              await cli.roleAdd("root", { signal, deadlineMs });
              await cli.userGrantRole("root", "root", { signal, deadlineMs });
            }
          }
        } catch (e) {
          exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
        io.stdout("Authentication Enabled\n");
      },
    }),
    new Command({
      use: "disable",
      short: "Disables authentication",
      run: async (c, args) => {
        noArgs("disable", args);
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const cli = await mustClientFromCmd(ctl, c, [["authDisableCommandFunc", "auth_command.go:118"]]);
        try {
          await cli.authDisable({ signal, deadlineMs });
        } catch (e) {
          exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
        io.stdout("Authentication Disabled\n");
      },
    }),
    new Command({
      use: "status",
      short: "Returns authentication status",
      run: async (c, args) => {
        noArgs("status", args);
        const { signal, deadlineMs, cancel } = commandCtx(c);
        const cli = await mustClientFromCmd(ctl, c, [["authStatusCommandFunc", "auth_command.go:56"]]);
        let r: pb.AuthStatusResponse;
        try {
          r = await cli.authStatus({ signal, deadlineMs });
        } catch (e) {
          return exitOnClientError(ctl, e);
        } finally {
          cancel();
        }
        ctl.display.authStatus(r);
      },
    }),
  );
  return ac;
}
