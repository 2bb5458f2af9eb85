// `etcdctl txn` (txn_command.go): three blank-line-terminated sections read from stdin (compares, success
// requests, failure requests), `-i` prompts, and one Txn RPC with no command timeout (as etcd, which commits
// with context.Background()).

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import { goPanic } from "../../cobra/go-panic.ts";
import { exitWith } from "../../cobra/io.ts";
import { cobraHelp, cobraUsage } from "../../cobra/usage-cobra.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { Ctl } from "../global.ts";
import { exitOnClientError, mustClientFromCmd } from "../global.ts";
import { argify, parseCompare } from "../txn-parse.ts";
import { defineDelCommand, getDelOp } from "./del.ts";
import { defineGetCommand, getGetOp } from "./get.ts";
import { definePutCommand, getPutOp } from "./put.ts";

const txnLong = `Txn reads multiple etcd requests from standard input and applies them as a single atomic transaction.

A transaction consists of three components:
1) a list of conditions,
2) a list of requests to apply if all the conditions are true,
3) a list of requests to apply if any condition is false.

Example interactive stdin usage:

---
etcdctl txn -i
# compares:
mod("key1") > "0"

# success requests (get, put, delete):
put key1 "overwrote-key1"

# failure requests (get, put, delete):
put key1 "created-key1"
put key2 "some extra key"
---

Refer to https://github.com/etcd-io/etcd/blob/main/etcdctl/README.md#txn-options.`;

/** readSection reads lines up to an empty one; a missing newline is io.EOF, as bufio.ReadString reports. */
async function readSection(
  ctl: Ctl,
  lines: AsyncIterator<string>,
  each: (line: string) => Promise<void> | void,
): Promise<void> {
  for (;;) {
    const next = await lines.next();
    if (next.done || !next.value.endsWith("\n")) exitWithError(ctl.io, ExitCode.invalidInput, "EOF");
    const line = next.value.trim();
    if (line.length === 0) return;
    await each(line);
  }
}

/** parseRequestUnion runs a request line through the put/get/del commands, as etcdctl does. */
async function parseRequestUnion(ctl: Ctl, line: string): Promise<pb.RequestOp> {
  const a = argify(line);
  if ("error" in a) return exitWithError(ctl.io, ExitCode.invalidInput, a.error);
  if (a.args.length < 2) exitWithError(ctl.io, ExitCode.invalidInput, `invalid txn compare request: ${line}`);
  let op: pb.RequestOp | undefined;
  // os.Stdin is already drained into etcdctl's bufio reader, so a value "from stdin" is never there.
  const noStdin = (args: string[]) => {
    if (args.length > 1) return new TextEncoder().encode(args[1]);
    throw new Error("no available argument and stdin");
  };
  const root = new Cmd({ use: "" });
  root.silenceErrors = true;
  root.usageFn = cobraUsage;
  root.helpFn = cobraHelp;
  root.addCommand(
    definePutCommand((c, args) => {
      op = pb.RequestOp.create({ requestPut: getPutOp(ctl, c, args, noStdin) });
    }),
    defineGetCommand((c, args) => {
      op = pb.RequestOp.create({ requestRange: getGetOp(ctl, c, args) });
    }),
    defineDelCommand(async (c, args) => {
      op = pb.RequestOp.create({ requestDeleteRange: await getDelOp(ctl, c, args) });
    }),
  );
  const err = await root.execute(ctl.io, a.args);
  if (err) exitWithError(ctl.io, ExitCode.invalidInput, `invalid txn request: ${line}`);
  if (!op) {
    // `-h` in a request line prints help and never sends an op: etcdctl blocks on its channel forever.
    ctl.io.stderr("fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n");
    return exitWith(2);
  }
  return op;
}

/** newTxnCommand is `etcdctl txn`. */
export function newTxnCommand(ctl: Ctl): Command {
  const cmd = new Cmd({
    use: "txn [options]",
    short: "Txn processes all the requests in one transaction",
    long: txnLong,
    run: async (c, args) => {
      const io = ctl.io;
      if (args.length !== 0) exitWithError(io, ExitCode.badArgs, "txn command does not accept argument");
      const client = await mustClientFromCmd(ctl, c, [["txnCommandFunc", "txn_command.go:76"]]);
      const interactive = c.flags().getBool("interactive");
      const prompt = (s: string) => interactive && io.stdout(`${s}\n`);
      const lines = io.stdinLines();
      const req = pb.TxnRequest.create();
      prompt("compares:");
      await readSection(ctl, lines, (line) => {
        const r = parseCompare(line);
        if ("panic" in r) goPanic(io, r.panic, r.frames);
        if ("error" in r) exitWithError(io, ExitCode.invalidInput, r.error);
        req.compare.push(r.cmp);
      });
      prompt("success requests (get, put, del):");
      await readSection(ctl, lines, async (line) => {
        req.success.push(await parseRequestUnion(ctl, line));
      });
      prompt("failure requests (get, put, del):");
      await readSection(ctl, lines, async (line) => {
        req.failure.push(await parseRequestUnion(ctl, line));
      });
      let resp: pb.TxnResponse;
      try {
        resp = await client.txn(req, {});
      } catch (e) {
        return exitOnClientError(ctl, e);
      }
      ctl.display.txn(resp);
    },
  });
  cmd.flags().bool("interactive", "i", false, "Input transaction in interactive mode");
  return cmd;
}
