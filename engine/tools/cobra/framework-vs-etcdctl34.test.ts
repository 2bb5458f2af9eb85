// The CLI framework against the real thing: a fixture that declares part of etcdctl 3.4's command tree
// (its flags, uses and descriptions copied from `etcdctl --help`) is rendered by our cobra/pflag port with
// etcd's 3.4 template, and must print byte for byte what Debian's /usr/bin/etcdctl 3.4.23 prints for help
// screens, unknown commands and flag errors. 3.6 differs only in the template (see usage-etcd.ts).

import { execFileSync, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { Command } from "./command.ts";
import { durationNs } from "../../go/go-duration.ts";
import { memoryIo, requireBinary } from "./testing.ts";
import { etcdUsage } from "./usage-etcd.ts";

const etcdctl34 = "/usr/bin/etcdctl";
const present = requireBinary(etcdctl34, "Debian etcd-client 3.4 (etcdctl)");

function fixture34(): Command {
  const root = new Command({
    use: "etcdctl",
    short: "A simple command line client for etcd3.",
    suggestFor: ["etcdctl"],
  });
  root.enablePrefixMatching = true;
  root.usageFn = etcdUsage({ version: "3.4.23", apiVersion: "3.4", layout34: true });
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

  const noop = () => {};
  const get = new Command({
    use: "get [options] <key> [range_end]",
    short: "Gets the key or a range of keys",
    run: noop,
  });
  get.flags().string("consistency", "", "l", "Linearizable(l) or Serializable(s)");
  get.flags().string("order", "", "", "Order of results; ASCEND or DESCEND (ASCEND by default)");
  get.flags().string("sort-by", "", "", "Sort target; CREATE, KEY, MODIFY, VALUE, or VERSION");
  get.flags().int64("limit", "", 0, "Maximum number of results");
  get.flags().bool("prefix", "", false, "Get keys with matching prefix");
  get
    .flags()
    .bool("from-key", "", false, "Get keys that are greater than or equal to the given key using byte compare");
  get.flags().int64("rev", "", 0, "Specify the kv revision");
  get.flags().bool("keys-only", "", false, "Get only the keys");
  get.flags().bool("print-value-only", "", false, 'Only write values when using the "simple" output format');

  const put = new Command({
    use: "put [options] <key> <value> (<value> can also be given from stdin)",
    short: "Puts the given key into the store",
    long: `
Puts the given key into the store.

When <value> begins with '-', <value> is interpreted as a flag.
Insert '--' for workaround:

$ put <key> -- <value>
$ put -- <key> <value>

If <value> isn't given as a command line argument and '--ignore-value' is not specified,
this command tries to read the value from standard input.

If <lease> isn't given as a command line argument and '--ignore-lease' is not specified,
this command tries to read the value from standard input.

For example,
$ cat file | put <key>
will store the content of the file to <key>.
`,
    run: noop,
  });
  put.flags().string("lease", "", "0", "lease ID (in hexadecimal) to attach to the key");
  put.flags().bool("prev-kv", "", false, "return the previous key-value pair before modification");
  put.flags().bool("ignore-value", "", false, "updates the key using its current value");
  put.flags().bool("ignore-lease", "", false, "updates the key using its current lease");

  const member = new Command({ use: "member <subcommand>", short: "Membership related commands" });
  const add = new Command({ use: "add <memberName> [options]", short: "Adds a member into the cluster", run: noop });
  add.flags().string("peer-urls", "", "", "comma separated peer URLs for the new member.");
  add.flags().bool("learner", "", false, "indicates if the new member is raft learner");
  const update = new Command({
    use: "update <memberID> [options]",
    short: "Updates a member in the cluster",
    run: noop,
  });
  update.flags().string("peer-urls", "", "", "comma separated peer URLs for the updated member.");
  member.addCommand(
    add,
    new Command({ use: "remove <memberID>", short: "Removes a member from the cluster", run: noop }),
    update,
    new Command({
      use: "list",
      short: "Lists all members in the cluster",
      long: `When --write-out is set to simple, this command prints out comma-separated member lists for each endpoint.
The items in the lists are ID, Status, Name, Peer Addrs, Client Addrs, Is Learner.
`,
      run: noop,
    }),
    new Command({
      use: "promote <memberID>",
      short: "Promotes a non-voting member in the cluster",
      long: "Promotes a non-voting learner member to a voting one in the cluster.\n",
      run: noop,
    }),
  );
  const compaction = new Command({
    use: "compaction [options] <revision>",
    short: "Compacts the event history in etcd",
    run: noop,
  });
  compaction
    .flags()
    .bool("physical", "", false, "'true' to wait for compaction to physically remove all old revisions");
  root.addCommand(get, put, member, compaction);
  return root;
}

async function ours(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const io = memoryIo();
  const err = await fixture34().execute(io, args);
  // etcdctl 3.4's MustStart printed the error a second time.
  if (err) io.stderr(`Error: ${err.message}\n`);
  return { stdout: io.out(), stderr: io.err() };
}

function real(args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(etcdctl34, args, { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } });
  return { stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!present)("cobra/pflag port vs etcdctl 3.4.23", () => {
  it("runs the real binary", () => {
    expect(execFileSync(etcdctl34, ["version"], { encoding: "utf8" })).toContain("3.4");
  });

  const cases: string[][] = [
    ["get", "--help"],
    ["put", "-h"],
    ["member"],
    ["member", "frob"],
    ["member", "list", "--help"],
    ["help", "member", "add"],
    ["get", "foo", "--bogus"],
    ["put", "dash", "-v"],
    ["get", "foo", "--rev=abc"],
    ["--command-timeout=abc", "get", "foo"],
    ["compaction", "-1"],
    ["get", "--limit"],
    ["gett", "foo"],
    ["foo"],
    ["compa", "--help"],
  ];
  for (const args of cases) {
    it(`etcdctl ${args.join(" ")}`, async () => {
      expect(await ours(args)).toEqual(real(args));
    });
  }
});
