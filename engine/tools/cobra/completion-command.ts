// The `completion [bash|zsh|fish|powershell]` command etcdctl and etcdutl share (completion_command.go in
// both tools): etcd's help text and argument rules; the scripts come from ./completion.ts (our own scripts).

import { Command, exactArgs, matchAll, onlyValidArgs } from "./command.ts";
import { bashCompletion, fishCompletion, powershellCompletion, zshCompletion } from "./completion.ts";
import type { CliIo } from "./io.ts";

/** completionLong is the help text of etcd's completion command for a tool called `name`. */
export function completionLong(name: string): string {
  return `To load completions:

Bash:

  $ source <(${name} completion bash)

  # To load completions for each session, execute once:
  # Linux:
  $ ${name} completion bash > /etc/bash_completion.d/${name}
  # macOS:
  $ ${name} completion bash > /usr/local/etc/bash_completion.d/${name}

Zsh:

  # If shell completion is not already enabled in your environment,
  # you will need to enable it.  You can execute the following once:

  $ echo "autoload -U compinit; compinit" >> ~/.zshrc

  # To load completions for each session, execute once:
  $ ${name} completion zsh > "\${fpath[1]}/_${name}"

  # You will need to start a new shell for this setup to take effect.

fish:

  $ ${name} completion fish | source

  # To load completions for each session, execute once:
  $ ${name} completion fish > ~/.config/fish/completions/${name}.fish

PowerShell:

  PS> ${name} completion powershell | Out-String | Invoke-Expression

  # To load completions for every new session, run:
  PS> ${name} completion powershell > ${name}.ps1
  # and source this file from your PowerShell profile.
`;
}

/** newCompletionCommandFor builds the completion command of a tool. */
export function newCompletionCommandFor(io: () => CliIo, name: string): Command {
  return new Command({
    use: "completion [bash|zsh|fish|powershell]",
    short: "Generate completion script",
    long: completionLong(name),
    disableFlagsInUseLine: true,
    validArgs: ["bash", "zsh", "fish", "powershell"],
    args: matchAll(exactArgs(1), onlyValidArgs()),
    run: (c, args) => {
      const root = c.root();
      const gen = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion, powershell: powershellCompletion }[
        args[0] as "bash"
      ];
      io().stdout(gen(root));
    },
  });
}
