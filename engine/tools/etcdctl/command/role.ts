// `etcdctl role add|delete|get|list|grant-permission|revoke-permission` (role_command.go).

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import * as authpb from "../../../store/proto/gen/authpb.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { exitOnClientError, mustClientFromCmd } from "../global.ts";
import { prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** newRoleCommand is `etcdctl role`. */
export function newRoleCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const rc = new Command({ use: "role <subcommand>", short: "Role related commands" });

  const permRange = (c: Command, args: string[]): { key: string; rangeEnd: string } => {
    const prefix = c.flags().getBool("prefix");
    const fromKey = c.flags().getBool("from-key");
    const key = args[0] as string;
    if (key.length === 0) {
      if (prefix && fromKey)
        exitWithError(io, ExitCode.badArgs, "--from-key and --prefix flags are mutually exclusive");
      return { key: "\x00", rangeEnd: prefix || fromKey ? "\x00" : "" };
    }
    if (args.length === 1) {
      if (prefix) {
        if (fromKey) exitWithError(io, ExitCode.badArgs, "--from-key and --prefix flags are mutually exclusive");
        return { key, rangeEnd: dec.decode(prefixRangeEnd(enc.encode(key))) };
      }
      return { key, rangeEnd: fromKey ? "\x00" : "" };
    }
    if (prefix) exitWithError(io, ExitCode.badArgs, "unexpected endkey argument with --prefix flag");
    if (fromKey) exitWithError(io, ExitCode.badArgs, "unexpected endkey argument with --from-key flag");
    return { key, rangeEnd: args[1] as string };
  };

  const simple = (use: string, short: string, msg: string, fn: (c: Command, role: string) => Promise<void>) =>
    new Command({
      use,
      short,
      run: async (c, args) => {
        if (args.length !== 1) exitWithError(io, ExitCode.badArgs, msg);
        await fn(c, args[0] as string);
      },
    });

  const add = simple(
    "add <role name>",
    "Adds a new role",
    "role add command requires role name as its argument",
    async (c, role) => {
      const cli = await mustClientFromCmd(ctl, c, [["roleAddCommandFunc", "role_command.go:113"]]);
      try {
        ctl.display.roleAdd(role, await cli.roleAdd(role, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );
  const del = simple(
    "delete <role name>",
    "Deletes a role",
    "role delete command requires role name as its argument",
    async (c, role) => {
      const cli = await mustClientFromCmd(ctl, c, [["roleDeleteCommandFunc", "role_command.go:127"]]);
      try {
        ctl.display.roleDelete(role, await cli.roleDelete(role, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );
  const get = simple(
    "get <role name>",
    "Gets detailed information of a role",
    "role get command requires role name as its argument",
    async (c, role) => {
      const cli = await mustClientFromCmd(ctl, c, [["roleGetCommandFunc", "role_command.go:142"]]);
      try {
        ctl.display.roleGet(role, await cli.roleGet(role, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  );
  const list = new Command({
    use: "list",
    short: "Lists all roles",
    run: async (c, args) => {
      if (args.length !== 0) exitWithError(io, ExitCode.badArgs, "role list command requires no arguments");
      const cli = await mustClientFromCmd(ctl, c, [["roleListCommandFunc", "role_command.go:156"]]);
      try {
        ctl.display.roleList(await cli.roleList({}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });

  const permTypes: Record<string, authpb.Permission_Type> = {
    READ: authpb.Permission_Type.READ,
    WRITE: authpb.Permission_Type.WRITE,
    READWRITE: authpb.Permission_Type.READWRITE,
  };
  const grant = new Command({
    use: "grant-permission [options] <role name> <permission type> <key> [endkey]",
    short: "Grants a key to a role",
    run: async (c, args) => {
      if (args.length < 3)
        exitWithError(
          io,
          ExitCode.badArgs,
          "role grant command requires role name, permission type, and key [endkey] as its argument",
        );
      const permType = permTypes[(args[1] as string).toUpperCase()];
      if (permType === undefined) exitWithError(io, ExitCode.badArgs, `invalid permission type: ${args[1]}`);
      const { key, rangeEnd } = permRange(c, args.slice(2));
      const cli = await mustClientFromCmd(ctl, c, [["roleGrantPermissionCommandFunc", "role_command.go:174"]]);
      const req = pb.AuthRoleGrantPermissionRequest.create({
        name: args[0] as string,
        perm: authpb.Permission.create({ permType, key: enc.encode(key), rangeEnd: enc.encode(rangeEnd) }),
      });
      try {
        ctl.display.roleGrantPermission(args[0] as string, await cli.roleGrantPermission(req, {}));
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });
  grant.flags().bool("prefix", "", false, "grant a prefix permission");
  grant
    .flags()
    .bool(
      "from-key",
      "",
      false,
      "grant a permission of keys that are greater than or equal to the given key using byte compare",
    );

  const revoke = new Command({
    use: "revoke-permission <role name> <key> [endkey]",
    short: "Revokes a key from a role",
    run: async (c, args) => {
      if (args.length < 2)
        exitWithError(
          io,
          ExitCode.badArgs,
          "role revoke-permission command requires role name and key [endkey] as its argument",
        );
      const { key, rangeEnd } = permRange(c, args.slice(1));
      const cli = await mustClientFromCmd(ctl, c, [["roleRevokePermissionCommandFunc", "role_command.go:188"]]);
      const req = pb.AuthRoleRevokePermissionRequest.create({
        role: args[0] as string,
        key: enc.encode(key),
        rangeEnd: enc.encode(rangeEnd),
      });
      try {
        ctl.display.roleRevokePermission(
          args[0] as string,
          args[1] as string,
          rangeEnd,
          await cli.roleRevokePermission(req, {}),
        );
      } catch (e) {
        exitOnClientError(ctl, e);
      }
    },
  });
  revoke.flags().bool("prefix", "", false, "revoke a prefix permission");
  revoke
    .flags()
    .bool(
      "from-key",
      "",
      false,
      "revoke a permission of keys that are greater than or equal to the given key using byte compare",
    );

  rc.addCommand(add, del, get, list, grant, revoke);
  return rc;
}
