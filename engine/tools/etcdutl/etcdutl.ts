// etcdutl's root command (etcdutl/ctl.go and main.go): cobra's default usage screen (the help template is
// just the usage), prefix matching, the --write-out flag, and main's habit of printing an error that cobra
// already printed a second time. runEtcdutl returns the exit status so tests can run it in-process.

import { Command } from "../cobra/command.ts";
import { newCompletionCommandFor } from "../cobra/completion-command.ts";
import { ExitCode, errorText } from "../cobra/exit.ts";
import type { CliIo } from "../cobra/io.ts";
import { ExitSignal } from "../cobra/io.ts";
import { cobraUsage } from "../cobra/usage-cobra.ts";
import { apiVersion, etcdVersion } from "../etcdctl/version.ts";
import { newDefragCommand } from "./command/defrag.ts";
import { newHashKVCommand } from "./command/hashkv.ts";
import { newMigrateCommand } from "./command/migrate.ts";
import { newSnapshotCommand } from "./command/snapshot.ts";

/** newEtcdutlCommand builds etcdutl's command tree for one run. */
export function newEtcdutlCommand(io: CliIo): Command {
  const root = new Command({
    use: "etcdutl",
    short: "An administrative command line tool for etcd3.",
    suggestFor: ["etcdutl"],
  });
  root.enablePrefixMatching = true;
  root.usageFn = cobraUsage;
  root
    .persistentFlags()
    .string("write-out", "w", "simple", "set the output format (fields, json, protobuf, simple, table)");
  const getIo = () => io;
  root.addCommand(
    newDefragCommand(getIo),
    newSnapshotCommand(getIo),
    newHashKVCommand(getIo),
    new Command({
      use: "version",
      short: "Prints the version of etcdutl",
      run: () => io.stdout(`etcdutl version: ${etcdVersion}\nAPI version: ${apiVersion}\n`),
    }),
    newCompletionCommandFor(getIo, "etcdutl"),
    newMigrateCommand(getIo),
  );
  return root;
}

/** runEtcdutl runs etcdutl with `args` (os.Args[1:]) and returns its exit status. */
export async function runEtcdutl(io: CliIo, args: string[]): Promise<number> {
  try {
    const err = await newEtcdutlCommand(io).execute(io, args);
    if (err) {
      // main: cobrautl.ExitWithError(ExitError, err) on whatever Execute returned, already printed by cobra.
      io.stderr(`Error: ${err.message}\n`);
      return ExitCode.error;
    }
    return ExitCode.success;
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    io.stderr(`Error: ${errorText(e)}\n`);
    return ExitCode.error;
  }
}
