// etcdctl's root command (ctlv3/ctl.go): the global flags with etcd 3.6's names, defaults and help texts,
// the command tree, prefix matching, and etcd's usage screen. runEtcdctl is the whole program: it returns
// the exit status instead of exiting so tests can run it in-process.

import { Command } from "../cobra/command.ts";
import { errorText } from "../cobra/exit.ts";
import { durationNs } from "../../go/go-duration.ts";
import type { CliIo } from "../cobra/io.ts";
import { ExitSignal } from "../cobra/io.ts";
import { etcdUsage } from "../cobra/usage-etcd.ts";
import { newAlarmCommand } from "./command/alarm.ts";
import { newAuthCommand } from "./command/auth.ts";
import { newCheckCommand } from "./command/check.ts";
import { newCompactionCommand } from "./command/compaction.ts";
import { newCompletionCommand } from "./command/completion.ts";
import { newDefragCommand } from "./command/defrag.ts";
import { newDelCommand } from "./command/del.ts";
import { newDowngradeCommand } from "./command/downgrade.ts";
import { newElectCommand } from "./command/elect.ts";
import { newEndpointCommand } from "./command/endpoint.ts";
import { newGetCommand } from "./command/get.ts";
import { newLeaseCommand } from "./command/lease.ts";
import { newLockCommand } from "./command/lock.ts";
import { newMakeMirrorCommand } from "./command/make-mirror.ts";
import { newMemberCommand } from "./command/member.ts";
import { newMoveLeaderCommand } from "./command/move-leader.ts";
import { newPutCommand } from "./command/put.ts";
import { newRoleCommand } from "./command/role.ts";
import { newSnapshotCommand } from "./command/snapshot.ts";
import { newTxnCommand } from "./command/txn.ts";
import { newUserCommand } from "./command/user.ts";
import { newVersionCommand } from "./command/version.ts";
import { newWatchCommand } from "./command/watch.ts";
import { Ctl } from "./global.ts";
import { apiVersion, etcdVersion } from "./version.ts";

/** newRootCommand builds etcdctl's whole command tree for one run. */
export function newRootCommand(ctl: Ctl): Command {
  const root = new Command({
    use: "etcdctl",
    short: "A simple command line client for etcd3.",
    suggestFor: ["etcdctl"],
  });
  root.enablePrefixMatching = true;
  root.usageFn = etcdUsage({ version: etcdVersion, apiVersion });
  const pf = root.persistentFlags();
  pf.stringSlice("endpoints", "", ["127.0.0.1:2379"], "gRPC endpoints");
  pf.bool("debug", "", false, "enable client-side debug logging");
  pf.string("write-out", "w", "simple", "set the output format (fields, json, protobuf, simple, table)");
  pf.bool("hex", "", false, "print byte strings as hex encoded strings");
  pf.duration("dial-timeout", "", 2 * durationNs.second, "dial timeout for client connections");
  pf.duration(
    "command-timeout",
    "",
    5 * durationNs.second,
    "timeout for short running command (excluding dial timeout)",
  );
  pf.duration("keepalive-time", "", 2 * durationNs.second, "keepalive time for client connections");
  pf.duration("keepalive-timeout", "", 6 * durationNs.second, "keepalive timeout for client connections");
  pf.int(
    "max-request-bytes",
    "",
    0,
    "client-side request send limit in bytes (if 0, it defaults to 2.0 MiB (2 * 1024 * 1024).)",
  );
  pf.int("max-recv-bytes", "", 0, 'client-side response receive limit in bytes (if 0, it defaults to "math.MaxInt32")');
  pf.bool("insecure-transport", "", true, "disable transport security for client connections");
  pf.bool("insecure-discovery", "", true, "accept insecure SRV records describing cluster endpoints");
  pf.bool(
    "insecure-skip-tls-verify",
    "",
    false,
    "skip server certificate verification (CAUTION: this option should be enabled only for testing purposes)",
  );
  pf.string("cert", "", "", "identify secure client using this TLS certificate file");
  pf.string("key", "", "", "identify secure client using this TLS key file");
  pf.string("cacert", "", "", "verify certificates of TLS-enabled secure servers using this CA bundle");
  pf.string("user", "", "", "username[:password] for authentication (prompt if password is not supplied)");
  pf.string(
    "password",
    "",
    "",
    "password for authentication (if this option is used, --user option shouldn't include password)",
  );
  pf.string("discovery-srv", "d", "", "domain name to query for SRV records describing cluster endpoints");
  pf.string("discovery-srv-name", "", "", "service name to query when using DNS discovery");

  root.addCommand(
    newGetCommand(ctl),
    newPutCommand(ctl),
    newDelCommand(ctl),
    newTxnCommand(ctl),
    newCompactionCommand(ctl),
    newAlarmCommand(ctl),
    newDefragCommand(ctl),
    newEndpointCommand(ctl),
    newMoveLeaderCommand(ctl),
    newWatchCommand(ctl),
    newVersionCommand(ctl),
    newLeaseCommand(ctl),
    newMemberCommand(ctl),
    newSnapshotCommand(ctl),
    newMakeMirrorCommand(ctl),
    newLockCommand(ctl),
    newElectCommand(ctl),
    newAuthCommand(ctl),
    newUserCommand(ctl),
    newRoleCommand(ctl),
    newCheckCommand(ctl),
    newCompletionCommand(ctl),
    newDowngradeCommand(ctl),
  );
  return root;
}

/** runEtcdctl runs etcdctl with `args` (os.Args[1:]) and returns its exit status. */
export async function runEtcdctl(io: CliIo, args: string[]): Promise<number> {
  const ctl = new Ctl(io);
  try {
    const err = await newRootCommand(ctl).execute(io, args);
    // MustStart: cobra already printed the error (SilenceErrors is false), so only the status remains.
    return err ? 1 : 0;
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    io.stderr(`Error: ${errorText(e)}\n`);
    return 1;
  } finally {
    ctl.closeAll();
  }
}
