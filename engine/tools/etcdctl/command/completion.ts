// `etcdctl completion [bash|zsh|fish|powershell]` (completion_command.go), built by the shared
// engine/tools/cobra/completion-command.ts.

import type { Command } from "../../cobra/command.ts";
import { newCompletionCommandFor } from "../../cobra/completion-command.ts";
import type { CliIo } from "../../cobra/io.ts";

/** newCompletionCommand is `etcdctl completion`. */
export function newCompletionCommand(ctl: { io: CliIo }): Command {
  return newCompletionCommandFor(() => ctl.io, "etcdctl");
}
