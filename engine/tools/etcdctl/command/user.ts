// `etcdctl user add|delete|get|list|passwd|grant-role|revoke-role` (user_command.go). These RPCs use no
// command timeout, as in etcd.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { askPassword } from "../password.ts";
import { clientCommand, firstArg, noArgs } from "./client-command.ts";

/** userAndRole is the `parse` of grant-role and revoke-role. */
const userAndRole = (args: string[]): readonly [string, string] => [args[0] as string, args[1] as string];

/** newUserCommand is `etcdctl user`. */
export function newUserCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const uc = new Command({ use: "user <subcommand>", short: "User related commands" });

  const readPasswordInteractive = async (name: string): Promise<string> => {
    let p1: string;
    let p2: string;
    try {
      p1 = await askPassword(io, `Password of ${name}: `);
    } catch (e) {
      return exitWithError(io, ExitCode.badArgs, `failed to ask password: ${errorText(e)}`);
    }
    if (p1.length === 0) exitWithError(io, ExitCode.badArgs, "empty password");
    try {
      p2 = await askPassword(io, `Type password of ${name} again for confirmation: `);
    } catch (e) {
      return exitWithError(io, ExitCode.badArgs, `failed to ask password: ${errorText(e)}`);
    }
    if (p1 !== p2) exitWithError(io, ExitCode.badArgs, "given passwords are different");
    return p1;
  };
  // fmt.Scanf("%s") reads one space-delimited word from stdin.
  const scanWord = () => new TextDecoder().decode(io.readStdin()).trim().split(/\s+/)[0] ?? "";

  uc.addCommand(
    clientCommand(ctl, {
      use: "add <user name or user:password> [options]",
      short: "Adds a new user",
      nArgs: 1,
      argsError: "user add command requires user name as its argument",
      site: ["userAddCommandFunc", "user_command.go:164"],
      flags: (f) => {
        f.bool("interactive", "", true, "Read password from stdin instead of interactive terminal");
        f.string("new-user-password", "", "", "Supply password from the command line flag");
        f.bool("no-password", "", false, "Create a user without password (CN based auth only)");
      },
      parse: async (args, c) => {
        const f = c.flags();
        let name = args[0] as string;
        let password = "";
        const noPassword = f.getBool("no-password");
        if (!noPassword) {
          const fromFlag = f.getString("new-user-password");
          if (fromFlag !== "") password = fromFlag;
          else {
            const colon = name.indexOf(":");
            if (colon < 0) password = f.getBool("interactive") ? await readPasswordInteractive(name) : scanWord();
            else {
              password = name.slice(colon + 1);
              name = name.slice(0, colon);
              if (name.length === 0) exitWithError(io, ExitCode.badArgs, "empty user name is not allowed");
            }
          }
        }
        return pb.AuthUserAddRequest.create({ name, password, options: { noPassword } });
      },
      call: async (cli, req) => ctl.display.userAdd(req.name, await cli.userAdd(req, {})),
    }),
    clientCommand(ctl, {
      use: "delete <user name>",
      short: "Deletes a user",
      nArgs: 1,
      argsError: "user delete command requires user name as its argument",
      site: ["userDeleteCommandFunc", "user_command.go:178"],
      parse: firstArg,
      call: async (cli, name) => ctl.display.userDelete(name, await cli.userDelete(name, {})),
    }),
    clientCommand(ctl, {
      use: "get <user name> [options]",
      short: "Gets detailed information of a user",
      nArgs: 1,
      argsError: "user get command requires user name as its argument",
      site: ["userGetCommandFunc", "user_command.go:192"],
      flags: (f) => f.bool("detail", "", false, "Show permissions of roles granted to the user"),
      parse: firstArg,
      call: async (cli, name, c) => {
        const resp = await cli.userGet(name, {});
        if (!c.flags().getBool("detail")) {
          ctl.display.userGet(name, resp);
          return;
        }
        io.stdout(`User: ${name}\n`);
        for (const role of resp.roles) {
          io.stdout("\n");
          ctl.display.roleGet(role, await cli.roleGet(role, {}));
        }
      },
    }),
    clientCommand(ctl, {
      use: "list",
      short: "Lists all users",
      nArgs: 0,
      argsError: "user list command requires no arguments",
      site: ["userListCommandFunc", "user_command.go:222"],
      parse: noArgs,
      call: async (cli) => ctl.display.userList(await cli.userList({})),
    }),
    clientCommand(ctl, {
      use: "passwd <user name> [options]",
      short: "Changes password of user",
      nArgs: 1,
      argsError: "user passwd command requires user name as its argument",
      site: ["userChangePasswordCommandFunc", "user_command.go:243"],
      flags: (f) =>
        f.bool("interactive", "", true, "If true, read password from stdin instead of interactive terminal"),
      parse: async (args, c) => {
        const name = args[0] as string;
        return { name, password: c.flags().getBool("interactive") ? await readPasswordInteractive(name) : scanWord() };
      },
      call: async (cli, { name, password }) =>
        ctl.display.userChangePassword(await cli.userChangePassword(name, password, {})),
    }),
    clientCommand(ctl, {
      use: "grant-role <user name> <role name>",
      short: "Grants a role to a user",
      nArgs: 2,
      argsError: "user grant command requires user name and role name as its argument",
      site: ["userGrantRoleCommandFunc", "user_command.go:256"],
      parse: userAndRole,
      call: async (cli, [u, r]) => ctl.display.userGrantRole(u, r, await cli.userGrantRole(u, r, {})),
    }),
    clientCommand(ctl, {
      use: "revoke-role <user name> <role name>",
      short: "Revokes a role from a user",
      nArgs: 2,
      argsError: "user revoke-role requires user name and role name as its argument",
      site: ["userRevokeRoleCommandFunc", "user_command.go:269"],
      parse: userAndRole,
      call: async (cli, [u, r]) => ctl.display.userRevokeRole(u, r, await cli.userRevokeRole(u, r, {})),
    }),
  );
  return uc;
}
