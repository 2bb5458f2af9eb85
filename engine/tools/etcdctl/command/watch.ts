// `etcdctl watch` (watch_command.go): a key, range or prefix from a revision, printing every event; the
// exec form (`watch k -- cmd args`) runs a command per event with ETCD_WATCH_* variables; `-i` reads
// `watch ...`/`progress` lines from stdin. Argument handling (ETCDCTL_WATCH_KEY/RANGE_END, `--`) is a port
// of parseWatchArgs, whose quirks are part of what learners see.

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { FlagSet } from "../../cobra/flags.ts";
import { goQuote } from "../../../go/go-strconv.ts";
import { exitWith } from "../../cobra/io.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { Event_EventType } from "../../../store/proto/gen/mvccpb.ts";
import type { CtlClient, WatchStream } from "../client-port.ts";
import type { Ctl } from "../global.ts";
import { mustClientFromCmd } from "../global.ts";
import type { WatchResult } from "../printer/printer.ts";
import { argify } from "../txn-parse.ts";
import { prefixRangeEnd } from "./util.ts";

const errBadArgsNum = "bad number of arguments";
const errBadArgsNumConflictEnv = "bad number of arguments (found conflicting environment key)";
const errBadArgsNumSeparator = "bad number of arguments (found separator --, but no commands)";
const errBadArgsInteractiveWatch = "args[0] must be 'watch' for interactive calls";

/** WatchOptions are the flags of one watch (the command's, or an interactive line's). */
interface WatchOptions {
  rev: number;
  prefix: boolean;
  prevKv: boolean;
  progressNotify: boolean;
}

function defineWatchFlags(fs: FlagSet): void {
  fs.bool("interactive", "i", false, "Interactive mode");
  fs.bool("prefix", "", false, "Watch on a prefix if prefix is set");
  fs.int64("rev", "", 0, "Revision to start watching");
  fs.bool("prev-kv", "", false, "get the previous key-value pair before the event happens");
  fs.bool("progress-notify", "", false, "get periodic watch progress notification from server");
}

function optionsOf(fs: FlagSet): WatchOptions {
  return {
    rev: fs.getInt("rev"),
    prefix: fs.getBool("prefix"),
    prevKv: fs.getBool("prev-kv"),
    progressNotify: fs.getBool("progress-notify"),
  };
}

/** ParsedWatchArgs is parseWatchArgs' result. */
export interface ParsedWatchArgs {
  watchArgs: string[];
  execArgs: string[];
  /** opts are the interactive line's flags (undefined outside interactive mode). */
  opts?: WatchOptions;
}

/** parseWatchArgs is watch_command.go's parseWatchArgs; it throws Error with etcd's message. */
export function parseWatchArgs(
  osArgs: readonly string[],
  commandArgs: readonly string[],
  envKey: string,
  envRange: string,
  interactive: boolean,
): ParsedWatchArgs {
  let rawArgs = [...osArgs];
  let watchArgs = [...commandArgs];
  const w = rawArgs.indexOf("watch");
  if (w >= 0) rawArgs = rawArgs.slice(w + 1);
  if (interactive) {
    if (watchArgs[0] !== "watch") throw new Error(errBadArgsInteractiveWatch);
    watchArgs = watchArgs.slice(1);
  }
  let execIdx = 0;
  let execExist = false;
  if (!interactive) {
    for (execIdx = 0; execIdx < rawArgs.length; execIdx++) {
      if (rawArgs[execIdx] === "--") {
        execExist = true;
        break;
      }
    }
    if (!execExist) execIdx = Math.max(0, rawArgs.length - 1);
    if (execExist && execIdx === rawArgs.length - 1) throw new Error(errBadArgsNumSeparator);
    if (!execExist && rawArgs.length < 1 && envKey === "") throw new Error(errBadArgsNum);
    if (execExist && envKey !== "") {
      let ridx = rawArgs.length - 1;
      for (let widx = watchArgs.length - 1; widx >= 0; widx--) {
        if (watchArgs[widx] === rawArgs[ridx]) {
          ridx--;
          continue;
        }
        if (ridx === execIdx) throw new Error(errBadArgsNumConflictEnv);
      }
    }
    if (!execExist && watchArgs.length > 0 && envKey !== "") throw new Error(errBadArgsNumConflictEnv);
  } else {
    for (execIdx = 0; execIdx < watchArgs.length; execIdx++) {
      if (watchArgs[execIdx] === "--") {
        execExist = true;
        break;
      }
    }
    if (execExist && execIdx === watchArgs.length - 1) throw new Error(errBadArgsNumSeparator);
    const fs = new FlagSet("watch");
    defineWatchFlags(fs);
    fs.parse(watchArgs);
    const pArgs = fs.args();
    if (!execExist && envKey === "" && pArgs.length < 1) throw new Error(errBadArgsNum);
    if (!execExist && pArgs.length > 0 && envKey !== "") throw new Error(errBadArgsNumConflictEnv);
  }
  const argsWithSep = interactive ? watchArgs : rawArgs;
  let idx = argsWithSep.indexOf("--");
  const foundSep = idx >= 0;
  if (!foundSep) idx = Math.max(0, argsWithSep.length - 1);
  const execArgs = foundSep ? argsWithSep.slice(idx + 1) : [];
  let opts: WatchOptions | undefined;
  if (interactive) {
    const fs = new FlagSet("watch");
    defineWatchFlags(fs);
    fs.parse(argsWithSep);
    watchArgs = fs.args();
    opts = optionsOf(fs);
  }
  if (envKey !== "") watchArgs = [envKey, ...(envRange !== "" ? [envRange] : []), ...watchArgs];
  if (!foundSep) return { watchArgs, execArgs: [], ...(opts ? { opts } : {}) };
  let endIdx = watchArgs.length - 1;
  for (; endIdx >= 0; endIdx--) if (watchArgs[endIdx] === argsWithSep[idx + 1]) break;
  watchArgs = watchArgs.slice(0, Math.max(0, endIdx));
  return { watchArgs, execArgs, ...(opts ? { opts } : {}) };
}

/** watchRequest is getWatchChan's request (clientv3's Watch with etcdctl's options). */
export function watchRequest(args: string[], o: WatchOptions): pb.WatchCreateRequest {
  if (args.length < 1) throw new Error(errBadArgsNum);
  const enc = new TextEncoder();
  let key: Uint8Array<ArrayBuffer> = enc.encode(args[0]);
  let rangeEnd: Uint8Array<ArrayBuffer> = new Uint8Array();
  if (args.length === 2) {
    if (o.prefix) throw new Error("`range_end` and `--prefix` are mutually exclusive");
    rangeEnd = enc.encode(args[1]);
  }
  if (o.prefix) {
    if (key.length === 0) {
      key = new Uint8Array([0]);
      rangeEnd = new Uint8Array([0]);
    } else rangeEnd = prefixRangeEnd(key);
  }
  return pb.WatchCreateRequest.create({
    key,
    rangeEnd,
    startRevision: o.rev,
    prevKv: o.prevKv,
    progressNotify: o.progressNotify,
  });
}

/** watchErr is clientv3 WatchResponse.Err(). */
export function watchErr(r: WatchResult & { closeErr?: string }): string | undefined {
  if (r.closeErr) return r.closeErr;
  if (r.compactRevision !== 0) return "etcdserver: mvcc: required revision has been compacted";
  if (r.canceled)
    return r.cancelReason !== ""
      ? cancelReasonError(r.cancelReason)
      : "etcdserver: mvcc: required revision is a future revision";
  return undefined;
}

/** cancelReasonError is v3rpc.Error over a FailedPrecondition status: etcd errors print bare. */
function cancelReasonError(reason: string): string {
  return reason.startsWith("etcdserver: ") ? reason : `rpc error: code = FailedPrecondition desc = ${reason}`;
}

function isProgressNotify(r: WatchResult): boolean {
  return r.events.length === 0 && !r.canceled && !r.created && r.compactRevision === 0 && r.header.revision !== 0;
}

async function printWatchCh(ctl: Ctl, ch: WatchStream, execArgs: string[]): Promise<void> {
  const io = ctl.io;
  for await (const resp of ch) {
    if (resp.canceled) io.stderr(`watch was canceled (${watchErr(resp) ?? "<nil>"})\n`);
    if (isProgressNotify(resp)) io.stdout(`progress notify: ${resp.header.revision}\n`);
    ctl.display.watch(resp);
    if (execArgs.length === 0) continue;
    for (const ev of resp.events) {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ETCD_WATCH_REVISION: String(resp.header.revision),
        ETCD_WATCH_EVENT_TYPE: goQuote(ev.type === Event_EventType.DELETE ? "DELETE" : "PUT"),
        ETCD_WATCH_KEY: goQuote(ev.kv?.key ?? new Uint8Array()),
        ETCD_WATCH_VALUE: goQuote(ev.kv?.value ?? new Uint8Array()),
      };
      const err = await runExec(execArgs, env);
      if (err !== undefined) {
        io.stderr(`command [${execArgs.map(goQuote).join(" ")}] error (${err})\n`);
        exitWith(1);
      }
    }
  }
}

async function runExec(args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { spawn } = await import("node:child_process"); // on demand: keeps start-up lean
  return new Promise((resolve) => {
    const child = spawn(args[0] as string, args.slice(1), { env, stdio: "inherit" });
    child.on("error", (e) => {
      const code = (e as NodeJS.ErrnoException).code;
      resolve(
        code === "ENOENT" ? `exec: ${goQuote(args[0] as string)}: executable file not found in $PATH` : e.message,
      );
    });
    child.on("exit", (code, signal) => {
      if (signal) resolve(`signal: ${signal === "SIGKILL" ? "killed" : signal}`);
      else resolve(code === 0 ? undefined : `exit status ${code}`);
    });
  });
}

async function watchInteractive(ctl: Ctl, cmd: Command, envKey: string, envRange: string): Promise<void> {
  const io = ctl.io;
  const client: CtlClient = await mustClientFromCmd(ctl, cmd, [["watchInteractiveFunc", "watch_command.go:95"]]);
  const lines = io.stdinLines();
  const running: Promise<void>[] = [];
  for (;;) {
    const next = await lines.next();
    if (next.done || !next.value.endsWith("\n")) {
      exitWithError(io, ExitCode.invalidInput, "error reading watch request line: EOF");
    }
    const l = next.value.slice(0, -1);
    const a = argify(l);
    const args = "args" in a ? a.args : [];
    if (args.length < 1) {
      io.stderr(`Invalid command: ${l} (watch and progress supported)\n`);
      continue;
    }
    if (args[0] === "watch") {
      if (args.length < 2 && envKey === "") {
        io.stderr(`Invalid command ${l} (command type or key is not provided)\n`);
        continue;
      }
      let parsed: ParsedWatchArgs;
      try {
        parsed = parseWatchArgs(io.argv, args, envKey, envRange, true);
      } catch (e) {
        return exitWithError(io, ExitCode.badArgs, e);
      }
      let req: pb.WatchCreateRequest;
      try {
        req = watchRequest(parsed.watchArgs, parsed.opts as WatchOptions);
      } catch (e) {
        io.stderr(`Invalid command ${l} (${errorText(e)})\n`);
        continue;
      }
      running.push(printWatchCh(ctl, client.watch(req, true), parsed.execArgs));
    } else if (args[0] === "progress") {
      try {
        await client.requestProgress();
      } catch (e) {
        exitWithError(io, ExitCode.error, e);
      }
    } else {
      io.stderr(`Invalid command ${l} (only support watch)\n`);
    }
  }
}

/** newWatchCommand is `etcdctl watch`. */
export function newWatchCommand(ctl: Ctl): Command {
  const cmd = new Cmd({
    use: "watch [options] [key or prefix] [range_end] [--] [exec-command arg1 arg2 ...]",
    short: "Watches events stream on keys or prefixes",
    run: async (c, args) => {
      const io = ctl.io;
      const envKey = io.getenv("ETCDCTL_WATCH_KEY");
      const envRange = io.getenv("ETCDCTL_WATCH_RANGE_END");
      if (envKey === "" && envRange !== "") {
        exitWithError(
          io,
          ExitCode.badArgs,
          `ETCDCTL_WATCH_KEY is empty but got ETCDCTL_WATCH_RANGE_END=${goQuote(envRange)}`,
        );
      }
      if (c.flags().getBool("interactive")) return watchInteractive(ctl, c, envKey, envRange);
      let parsed: ParsedWatchArgs;
      try {
        parsed = parseWatchArgs(io.argv, args, envKey, envRange, false);
      } catch (e) {
        return exitWithError(io, ExitCode.badArgs, e);
      }
      const client = await mustClientFromCmd(ctl, c, [["watchCommandFunc", "watch_command.go:81"]]);
      let stream: WatchStream;
      try {
        stream = client.watch(watchRequest(parsed.watchArgs, optionsOf(c.flags())), true);
      } catch (e) {
        return exitWithError(io, ExitCode.badArgs, e);
      }
      await printWatchCh(ctl, stream, parsed.execArgs);
      client.close();
      exitWithError(io, ExitCode.interrupted, "watch is canceled by the server");
    },
  });
  defineWatchFlags(cmd.flags());
  return cmd;
}
