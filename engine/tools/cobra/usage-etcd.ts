// etcd's own usage screen (pkg/cobrautl in etcd 3.6): NAME / USAGE / VERSION / API VERSION / Examples /
// COMMANDS / DESCRIPTION / OPTIONS / GLOBAL OPTIONS, indented by two spaces (3.4 used a tab) and aligned by
// text/tabwriter. etcdctl prints it straight to standard output, so cobra's UsageString() is empty and the
// "Error: unknown flag" path shows the screen on stdout and a blank line on stderr — as etcd does.

import type { Command, UsageFn } from "./command.ts";
import type { FlagSet } from "./flags.ts";
import { goQuote } from "../../go/go-strconv.ts";
import { tabwrite } from "./tabwriter.ts";

/** EtcdUsageOptions are the values etcd's template prints besides the command itself. */
export interface EtcdUsageOptions {
  version: string;
  apiVersion: string;
  /**
   * layout34 renders etcdctl 3.4's variant of the template (a tab instead of two spaces, an extra blank
   * line before COMMANDS, no Examples). Only tests use it, to check this renderer against the real 3.4
   * binary installed on the machine.
   */
  layout34?: boolean;
}

/** cmdName is the template's cmdName: the command path below `start`. */
function cmdName(cmd: Command, start: Command): string {
  const parts = [cmd.name()];
  let c = cmd;
  while (c.parent && c.parent.name() !== start.name()) {
    c = c.parent;
    parts.unshift(c.name());
  }
  return parts.join(" ");
}

function subCommandsDeep(cmd: Command): Command[] {
  const out: Command[] = [];
  for (const sub of cmd.commands()) out.push(sub, ...subCommandsDeep(sub));
  return out;
}

/** etcdFlagUsages prints flags as etcd does: `  -w, --write-out="simple"<TAB>usage` with `[=false]` for bools. */
export function etcdFlagUsages(fs: FlagSet): string {
  let out = "";
  fs.visitAll((f) => {
    if (f.deprecated !== "") return;
    let line = f.shorthand !== "" ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
    if (f.noOptDefVal !== "") line += "[";
    line += f.value.type === "string" ? `=${goQuote(f.defValue)}` : `=${f.defValue}`;
    if (f.noOptDefVal !== "") line += "]";
    out += `${line}\t${f.usage}\n`;
  });
  return out;
}

/** renderEtcdUsage renders the usage screen of `cmd` (before tab alignment is applied, it is the template). */
export function renderEtcdUsage(cmd: Command, opts: EtcdUsageOptions): string {
  const legacy = opts.layout34 === true;
  // 3.4 printed "\t%s", which indents only the first line of a multi-line value.
  const indent = (s: string) => (legacy ? `\t${s}` : `  ${s.split("\n").join("\n  ")}`);
  const root = cmd.root();
  let s = "NAME:\n";
  s += `${indent(`${cmd.hasParent() ? cmdName(cmd, root) : cmd.name()} - ${cmd.short}`)}\n`;
  s += `\nUSAGE:\n${indent(cmd.useLine())}\n`;
  if (!cmd.hasParent()) s += `\nVERSION:\n${indent(opts.version)}\n`;
  if (cmd.hasSubCommands()) s += `\nAPI VERSION:\n${indent(opts.apiVersion)}\n`;
  if (cmd.example !== "" && !legacy) s += `\nExamples:\n${cmd.example}\n`;
  if (cmd.hasSubCommands()) {
    s += legacy ? "\n\nCOMMANDS:\n" : "\nCOMMANDS:\n";
    for (const sub of subCommandsDeep(cmd)) {
      if (sub.runnable()) s += `${indent(`${cmdName(sub, cmd)}\t${sub.short}`)}\n`;
    }
  }
  if (cmd.long !== "") {
    s += "\nDESCRIPTION:\n";
    for (const line of cmd.long.replace(/^[\n\t ]+|[\n\t ]+$/g, "").split("\n")) s += `${indent(line)}\n`;
  }
  const local = cmd.localFlags();
  if (local.hasFlags()) s += `\nOPTIONS:\n${etcdFlagUsages(local)}`;
  const inherited = cmd.inheritedFlags();
  if (inherited.hasFlags()) s += `\nGLOBAL OPTIONS:\n${etcdFlagUsages(inherited)}`;
  s += "\n";
  return tabwrite(s);
}

/** etcdUsage is the UsageFn etcdctl installs: the screen goes to standard output, not to cobra's writer. */
export function etcdUsage(opts: EtcdUsageOptions): UsageFn {
  return (cmd) => cmd.io().stdout(renderEtcdUsage(cmd, opts));
}
