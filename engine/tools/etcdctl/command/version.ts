// `etcdctl version` (version_command.go).

import { Command } from "../../cobra/command.ts";
import type { Ctl } from "../global.ts";
import { apiVersion, etcdVersion } from "../version.ts";

/** newVersionCommand prints the etcdctl and API versions. */
export function newVersionCommand(ctl: Ctl): Command {
  return new Command({
    use: "version",
    short: "Prints the version of etcdctl",
    run: () => {
      ctl.io.stdout(`etcdctl version: ${etcdVersion}\nAPI version: ${apiVersion}\n`);
    },
  });
}
