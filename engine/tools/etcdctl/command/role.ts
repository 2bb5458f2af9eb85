// `etcdctl role add|delete|get|list|grant-permission|revoke-permission` (role_command.go).

import { Command } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import type { FlagSet } from "../../cobra/flags.ts";
import type { CliIo } from "../../cobra/io.ts";
import * as authpb from "../../../store/proto/gen/authpb.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { clientCommand, firstArg, noArgs } from "./client-command.ts";
import { prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const permTypes: Record<string, authpb.Permission_Type> = {
  READ: authpb.Permission_Type.READ,
  WRITE: authpb.Permission_Type.WRITE,
  READWRITE: authpb.Permission_Type.READWRITE,
};

/** permRange is role_command.go's permRange: the key range of `<key> [endkey]` under --prefix/--from-key. */
function permRange(io: CliIo, c: Command, args: string[]): { key: string; rangeEnd: string } {
  const prefix = c.flags().getBool("prefix");
  const fromKey = c.flags().getBool("from-key");
  const key = args[0] as string;
  if (key.length === 0) {
    if (prefix && fromKey) exitWithError(io, ExitCode.badArgs, "--from-key and --prefix flags are mutually exclusive");
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
}

/** rangeFlags declares --prefix and --from-key for grant-permission ("grant") and revoke-permission ("revoke"). */
const rangeFlags = (verb: string) => (f: FlagSet) => {
  f.bool("prefix", "", false, `${verb} a prefix permission`);
  f.bool(
    "from-key",
    "",
    false,
    `${verb} a permission of keys that are greater than or equal to the given key using byte compare`,
  );
};

/** newRoleCommand is `etcdctl role`. */
export function newRoleCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const rc = new Command({ use: "role <subcommand>", short: "Role related commands" });
  rc.addCommand(
    clientCommand(ctl, {
      use: "add <role name>",
      short: "Adds a new role",
      nArgs: 1,
      argsError: "role add command requires role name as its argument",
      site: ["roleAddCommandFunc", "role_command.go:113"],
      parse: firstArg,
      call: async (cli, role) => ctl.display.roleAdd(role, await cli.roleAdd(role, {})),
    }),
    clientCommand(ctl, {
      use: "delete <role name>",
      short: "Deletes a role",
      nArgs: 1,
      argsError: "role delete command requires role name as its argument",
      site: ["roleDeleteCommandFunc", "role_command.go:127"],
      parse: firstArg,
      call: async (cli, role) => ctl.display.roleDelete(role, await cli.roleDelete(role, {})),
    }),
    clientCommand(ctl, {
      use: "get <role name>",
      short: "Gets detailed information of a role",
      nArgs: 1,
      argsError: "role get command requires role name as its argument",
      site: ["roleGetCommandFunc", "role_command.go:142"],
      parse: firstArg,
      call: async (cli, role) => ctl.display.roleGet(role, await cli.roleGet(role, {})),
    }),
    clientCommand(ctl, {
      use: "list",
      short: "Lists all roles",
      nArgs: 0,
      argsError: "role list command requires no arguments",
      site: ["roleListCommandFunc", "role_command.go:156"],
      parse: noArgs,
      call: async (cli) => ctl.display.roleList(await cli.roleList({})),
    }),
    clientCommand(ctl, {
      use: "grant-permission [options] <role name> <permission type> <key> [endkey]",
      short: "Grants a key to a role",
      nArgs: { min: 3 },
      argsError: "role grant command requires role name, permission type, and key [endkey] as its argument",
      site: ["roleGrantPermissionCommandFunc", "role_command.go:174"],
      flags: rangeFlags("grant"),
      parse: (args, c) => {
        const permType = permTypes[(args[1] as string).toUpperCase()];
        if (permType === undefined) exitWithError(io, ExitCode.badArgs, `invalid permission type: ${args[1]}`);
        const { key, rangeEnd } = permRange(io, c, args.slice(2));
        return pb.AuthRoleGrantPermissionRequest.create({
          name: args[0] as string,
          perm: authpb.Permission.create({ permType, key: enc.encode(key), rangeEnd: enc.encode(rangeEnd) }),
        });
      },
      call: async (cli, req) => ctl.display.roleGrantPermission(req.name, await cli.roleGrantPermission(req, {})),
    }),
    clientCommand(ctl, {
      use: "revoke-permission <role name> <key> [endkey]",
      short: "Revokes a key from a role",
      nArgs: { min: 2 },
      argsError: "role revoke-permission command requires role name and key [endkey] as its argument",
      site: ["roleRevokePermissionCommandFunc", "role_command.go:188"],
      flags: rangeFlags("revoke"),
      parse: (args, c) => {
        const { key, rangeEnd } = permRange(io, c, args.slice(1));
        const req = pb.AuthRoleRevokePermissionRequest.create({
          role: args[0] as string,
          key: enc.encode(key),
          rangeEnd: enc.encode(rangeEnd),
        });
        return { req, shownKey: args[1] as string, rangeEnd };
      },
      call: async (cli, { req, shownKey, rangeEnd }) =>
        ctl.display.roleRevokePermission(req.role, shownKey, rangeEnd, await cli.roleRevokePermission(req, {})),
    }),
  );
  return rc;
}
