// `etcdctl completion [bash|zsh|fish|powershell]` (completion_command.go), built by the shared
// engine/cli/completion-command.ts.

import type { Command } from "../../cli/command.ts";
import { newCompletionCommandFor } from "../../cli/completion-command.ts";
import type { CliIo } from "../../cli/io.ts";

/** newCompletionCommand is `etcdctl completion`. */
export function newCompletionCommand(ctl: { io: CliIo }): Command {
  return newCompletionCommandFor(() => ctl.io, "etcdctl");
}
