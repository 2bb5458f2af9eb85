// Shell completion scripts for a command tree, behind the same `completion [bash|zsh|fish|powershell]`
// command etcd's tools have. The scripts are our own (cobra's generated scripts are not reproduced): each
// embeds the tree's subcommands and flags and completes them statically, which is what a lab shell needs.

import type { Command } from "./command.ts";

interface Node {
  path: string;
  subs: string[];
  flags: string[];
}

function walk(cmd: Command, out: Node[]): void {
  cmd.initDefaultHelpFlag();
  const flags: string[] = [];
  cmd.flags().visitAll((f) => {
    if (f.hidden) return;
    flags.push(`--${f.name}`);
    if (f.shorthand !== "") flags.push(`-${f.shorthand}`);
  });
  const subs = cmd
    .commands()
    .filter((c) => c.isAvailableCommand() || c.name() === "help")
    .map((c) => c.name());
  out.push({ path: cmd.commandPath(), subs, flags });
  for (const c of cmd.commands()) if (c.isAvailableCommand()) walk(c, out);
}

function shellWords(words: string[]): string {
  return words.join(" ");
}

/** bashCompletion is a bash completion script for root's tree. */
export function bashCompletion(root: Command): string {
  const nodes: Node[] = [];
  walk(root, nodes);
  const fn = `__${root.name()}_complete`;
  let s = `# bash completion for ${root.name()}                          -*- shell-script -*-\n\n`;
  s += `${fn}() {\n  local cur path i w\n  cur="\${COMP_WORDS[COMP_CWORD]}"\n  path="${root.name()}"\n`;
  s += `  for ((i = 1; i < COMP_CWORD; i++)); do\n    w="\${COMP_WORDS[i]}"\n    case "$w" in -*) continue ;; esac\n`;
  s += `    case "$path $w" in\n`;
  for (const n of nodes) for (const sub of n.subs) s += `      "${n.path} ${sub}") path="${n.path} ${sub}" ;;\n`;
  s += `    esac\n  done\n  case "$path" in\n`;
  for (const n of nodes) {
    s += `    "${n.path}")\n      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${shellWords(n.flags)}" -- "$cur"));\n`;
    s += `      else COMPREPLY=($(compgen -W "${shellWords(n.subs)}" -- "$cur")); fi ;;\n`;
  }
  s += `  esac\n}\n\ncomplete -o default -F ${fn} ${root.name()}\n\n# ex: ts=4 sw=4 et filetype=sh\n`;
  return s;
}

/** zshCompletion wraps the bash script with zsh's bashcompinit. */
export function zshCompletion(root: Command): string {
  return `#compdef ${root.name()}\ncompdef _${root.name()} ${root.name()}\n\nautoload -U +X bashcompinit && bashcompinit\n${bashCompletion(root)}`;
}

/** fishCompletion lists subcommands and flags per command path for fish. */
export function fishCompletion(root: Command): string {
  const nodes: Node[] = [];
  walk(root, nodes);
  const name = root.name();
  let s = `# fish completion for ${name}                                -*- shell-script -*-\n\n`;
  s += `function __${name}_path_is\n    set -l words (commandline -opc)\n    set -l path\n    for w in $words\n        string match -q -- '-*' $w; and continue\n        set path $path $w\n    end\n    test "$path" = "$argv"\nend\n\n`;
  for (const n of nodes) {
    for (const sub of n.subs) s += `complete -c ${name} -f -n '__${name}_path_is ${n.path}' -a ${sub}\n`;
    for (const fl of n.flags) {
      const opt = fl.startsWith("--") ? `-l ${fl.slice(2)}` : `-s ${fl.slice(1)}`;
      s += `complete -c ${name} -n '__${name}_path_is ${n.path}' ${opt}\n`;
    }
  }
  return s;
}

/** powershellCompletion registers an argument completer with the same table. */
export function powershellCompletion(root: Command): string {
  const nodes: Node[] = [];
  walk(root, nodes);
  const name = root.name();
  let s = `# powershell completion for ${name}                          -*- shell-script -*-\n\n`;
  s += `$__${name}Tree = @{\n`;
  for (const n of nodes) s += `    '${n.path}' = @(${[...n.subs, ...n.flags].map((w) => `'${w}'`).join(", ")})\n`;
  s += `}\n\nRegister-ArgumentCompleter -CommandName '${name}' -ScriptBlock {\n    param($WordToComplete, $CommandAst, $CursorPosition)\n`;
  s += `    $path = '${name}'\n    foreach ($e in $CommandAst.CommandElements | Select-Object -Skip 1) {\n        $w = "$e"\n        if ($w -eq $WordToComplete -or $w.StartsWith('-')) { continue }\n        if ($__${name}Tree.ContainsKey("$path $w")) { $path = "$path $w" }\n    }\n`;
  s += `    $__${name}Tree[$path] | Where-Object { $_ -like "$WordToComplete*" } | ForEach-Object {\n        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)\n    }\n}\n`;
  return s;
}
