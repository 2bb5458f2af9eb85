// `etcdctl user add|delete|get|list|passwd|grant-role|revoke-role` (user_command.go). These RPCs use no
// command timeout, as in etcd.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { exitOnClientError, mustClientFromCmd } from "../global.ts";
import { askPassword } from "../password.ts";

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

  const add = new Command({
    use: "add <user name or user:password> [options]",
    short: "Adds a new user",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "user add command requires user name as its argument");
      const f = c.flags();
      let user = args[0] as string;
      let password = "";
      const noPassword = f.getBool("no-password");
      if (!noPassword) {
        const fromFlag = f.getString("new-user-password");
        if (fromFlag !== "") password = fromFlag;
        else {
          const colon = user.indexOf(":");
          if (colon < 0) password = f.getBool("interactive") ? await readPasswordInteractive(user) : scanWord();
          else {
            password = user.slice(colon + 1);
            user = user.slice(0, colon);
            if (user.length === 0) exitWithError(io, ExitCode.badArgs, "empty user name is not allowed");
          }
        }
      }
      const cli = await mustClientFromCmd(ctl, c, [["userAddCommandFunc", "user_command.go:164"]]);
      try {
        const req = pb.AuthUserAddRequest.create({ name: user, password, options: { noPassword } });
        ctl.display.userAdd(user, await cli.userAdd(req, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });
  add.flags().bool("interactive", "", true, "Read password from stdin instead of interactive terminal");
  add.flags().string("new-user-password", "", "", "Supply password from the command line flag");
  add.flags().bool("no-password", "", false, "Create a user without password (CN based auth only)");

  const one = (use: string, short: string, msg: string, fn: (c: Command, name: string) => Promise<void>) =>
    new Command({
      use,
      short,
      run: async (c, args) => {
        if (args.length !== 1) exitWithError(io, ExitCode.badArgs, msg);
        await fn(c, args[0] as string);
      },
    });

  const del = one(
    "delete <user name>",
    "Deletes a user",
    "user delete command requires user name as its argument",
    async (c, name) => {
      const cli = await mustClientFromCmd(ctl, c, [["userDeleteCommandFunc", "user_command.go:178"]]);
      try {
        ctl.display.userDelete(name, await cli.userDelete(name, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );

  const get = one(
    "get <user name> [options]",
    "Gets detailed information of a user",
    "user get command requires user name as its argument",
    async (c, name) => {
      const cli = await mustClientFromCmd(ctl, c, [["userGetCommandFunc", "user_command.go:192"]]);
      let resp: pb.AuthUserGetResponse;
      try {
        resp = await cli.userGet(name, {});
      } catch (e) {
        return exitOnClientError(ctl, e);
      }
      if (!c.flags().getBool("detail")) {
        ctl.display.userGet(name, resp);
        return;
      }
      io.stdout(`User: ${name}\n`);
      for (const role of resp.roles) {
        io.stdout("\n");
        try {
          ctl.display.roleGet(role, await cli.roleGet(role, {}));
        } catch (e) {
          exitOnClientError(ctl, e);
        }
      }
    },
  );
  get.flags().bool("detail", "", false, "Show permissions of roles granted to the user");

  const list = new Command({
    use: "list",
    short: "Lists all users",
    run: async (c, args) => {
      if (args.length !== 0) exitWithError(io, ExitCode.badArgs, "user list command requires no arguments");
      const cli = await mustClientFromCmd(ctl, c, [["userListCommandFunc", "user_command.go:222"]]);
      try {
        ctl.display.userList(await cli.userList({}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });

  const passwd = one(
    "passwd <user name> [options]",
    "Changes password of user",
    "user passwd command requires user name as its argument",
    async (c, name) => {
      const password = c.flags().getBool("interactive") ? await readPasswordInteractive(name) : scanWord();
      const cli = await mustClientFromCmd(ctl, c, [["userChangePasswordCommandFunc", "user_command.go:243"]]);
      try {
        ctl.display.userChangePassword(await cli.userChangePassword(name, password, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );
  passwd.flags().bool("interactive", "", true, "If true, read password from stdin instead of interactive terminal");

  const two = (
    use: string,
    short: string,
    msg: string,
    fn: (c: Command, user: string, role: string) => Promise<void>,
  ) =>
    new Command({
      use,
      short,
      run: async (c, args) => {
        if (args.length !== 2) exitWithError(io, ExitCode.badArgs, msg);
        await fn(c, args[0] as string, args[1] as string);
      },
    });
  const grant = two(
    "grant-role <user name> <role name>",
    "Grants a role to a user",
    "user grant command requires user name and role name as its argument",
    async (c, u, r) => {
      const cli = await mustClientFromCmd(ctl, c, [["userGrantRoleCommandFunc", "user_command.go:256"]]);
      try {
        ctl.display.userGrantRole(u, r, await cli.userGrantRole(u, r, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );
  const revoke = two(
    "revoke-role <user name> <role name>",
    "Revokes a role from a user",
    "user revoke-role requires user name and role name as its argument",
    async (c, u, r) => {
      const cli = await mustClientFromCmd(ctl, c, [["userRevokeRoleCommandFunc", "user_command.go:269"]]);
      try {
        ctl.display.userRevokeRole(u, r, await cli.userRevokeRole(u, r, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );

  uc.addCommand(add, del, get, list, passwd, grant, revoke);
  return uc;
}
