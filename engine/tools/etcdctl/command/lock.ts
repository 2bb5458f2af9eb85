// `etcdctl lock <name> [cmd args...]` (lock_command.go): hold a lock until SIGINT/SIGTERM (printing the
// lock key), or run a command while holding it (exit status of the command).

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { exitWith } from "../../cobra/io.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { Mutex, Session } from "../concurrency.ts";
import type { Ctl } from "../global.ts";
import { mustClientFromCmd } from "../global.ts";

/** untilSignal resolves on SIGINT or SIGTERM (and stops listening afterwards). */
export function untilSignal(): { promise: Promise<void>; dispose: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  const on = () => resolve();
  process.on("SIGINT", on);
  process.on("SIGTERM", on);
  return {
    promise,
    dispose: () => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}

/** newLockCommand is `etcdctl lock`. */
export function newLockCommand(ctl: Ctl): Command {
  const cmd = new Command({
    use: "lock <lockname> [exec-command arg1 arg2 ...]",
    short: "Acquires a named lock",
    run: async (c, args) => {
      const io = ctl.io;
      if (args.length === 0)
        exitWithError(io, ExitCode.badArgs, "lock takes a lock name argument and an optional command to execute");
      const client = await mustClientFromCmd(ctl, c, [["lockCommandFunc", "lock_command.go:50"]]);
      const fail = (e: unknown): never => exitWithError(io, ExitCode.error, errorText(e));
      const sig = untilSignal();
      const abort = new AbortController();
      void sig.promise.then(() => abort.abort(new Error("context canceled")));
      try {
        let s: Session;
        try {
          s = await Session.create(client, c.flags().getInt("ttl"), {});
        } catch (e) {
          return fail(e);
        }
        const m = new Mutex(s, args[0] as string);
        try {
          await m.lock({ signal: abort.signal });
        } catch (e) {
          return fail(e);
        }
        const cmdArgs = args.slice(1);
        if (cmdArgs.length > 0) {
          const env = { ETCD_LOCK_KEY: m.myKey, ETCD_LOCK_REV: String(m.header?.revision ?? 0), ...process.env };
          const { spawn } = await import("node:child_process"); // on demand: keeps start-up lean
          const status = await new Promise<number | string>((resolve) => {
            const child = spawn(cmdArgs[0] as string, cmdArgs.slice(1), { env, stdio: "inherit" });
            child.on("error", (e) =>
              resolve(
                (e as NodeJS.ErrnoException).code === "ENOENT"
                  ? `exec: "${cmdArgs[0]}": executable file not found in $PATH`
                  : e.message,
              ),
            );
            child.on("exit", (code, signal) => resolve(signal ? `signal: ${signal}` : (code ?? 0)));
          });
          try {
            await m.unlock({});
          } catch (e) {
            if (status === 0) fail(e);
          }
          if (typeof status === "string") return fail(status);
          if (status !== 0) exitWithError(io, status, `exit status ${status}`);
          return;
        }
        let k: pb.RangeResponse;
        try {
          k = await client.range(pb.RangeRequest.create({ key: new TextEncoder().encode(m.myKey) }), {
            signal: abort.signal,
          });
        } catch (e) {
          return fail(e);
        }
        if (k.kvs.length === 0) fail("lock lost on init");
        ctl.display.get(k);
        const ended = await Promise.race([
          sig.promise.then(() => "signal" as const),
          s.done().then(() => "expired" as const),
        ]);
        if (ended === "signal") {
          try {
            await m.unlock({});
          } catch (e) {
            fail(e);
          }
          exitWith(0);
        }
        fail("session expired");
      } finally {
        sig.dispose();
      }
    },
  });
  cmd.flags().int("ttl", "", 10, "timeout for session");
  return cmd;
}
