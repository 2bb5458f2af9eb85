// cobra's default usage screen ("Usage:", "Available Commands:", "Flags:", "Global Flags:") and pflag's
// FlagUsages column layout. etcdutl keeps cobra's defaults (it sets only the help template), so its help
// looks like most Go tools' help, not like etcdctl's NAME/USAGE screen.

import type { Command, UsageFn } from "./command.ts";
import type { Flag, FlagSet } from "./flags.ts";
import { goQuote } from "../../go/go-strconv.ts";

const minNamePadding = 11;
const minCommandPathPadding = 11;

function rpad(s: string, n: number): string {
  return s.padEnd(n, " ");
}

function trimRightSpace(s: string): string {
  return s.replace(/\s+$/u, "");
}

/** unquoteUsage is pflag's UnquoteUsage: the value placeholder name and the usage text. */
function unquoteUsage(f: Flag): { name: string; usage: string } {
  const usage = f.usage;
  const i = usage.indexOf("`");
  if (i >= 0) {
    const j = usage.indexOf("`", i + 1);
    if (j >= 0) {
      const name = usage.slice(i + 1, j);
      return { name, usage: usage.slice(0, i) + name + usage.slice(j + 1) };
    }
  }
  const byType: Record<string, string> = {
    bool: "",
    boolfunc: "",
    func: "value",
    float64: "float",
    int64: "int",
    uint64: "uint",
    stringSlice: "strings",
    intSlice: "ints",
    uintSlice: "uints",
    boolSlice: "bools",
  };
  return { name: byType[f.value.type] ?? f.value.type, usage };
}

function defaultIsZeroValue(f: Flag): boolean {
  switch (f.value.type) {
    case "bool":
      return f.defValue === "false" || f.defValue === "";
    case "duration":
      return f.defValue === "0" || f.defValue === "0s";
    case "int":
    case "int64":
    case "uint":
    case "uint64":
      return f.defValue === "0";
    case "string":
      return f.defValue === "";
    case "stringSlice":
      return f.defValue === "[]";
    default:
      return ["false", "<nil>", "", "0"].includes(f.defValue);
  }
}

/** flagUsages is pflag's FlagSet.FlagUsages(): aligned `  -w, --write-out string   usage (default "x")`. */
export function flagUsages(fs: FlagSet): string {
  const lines: string[] = [];
  let maxlen = 0;
  fs.visitAll((f) => {
    if (f.hidden) return;
    let line = f.shorthand !== "" ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
    const { name, usage } = unquoteUsage(f);
    if (name !== "") line += ` ${name}`;
    if (f.noOptDefVal !== "") {
      if (f.value.type === "string") line += `[="${f.noOptDefVal}"]`;
      else if (f.value.type === "bool" || f.value.type === "boolfunc") {
        if (f.noOptDefVal !== "true") line += `[=${f.noOptDefVal}]`;
      } else line += `[=${f.noOptDefVal}]`;
    }
    line += "\x00";
    if (line.length > maxlen) maxlen = line.length;
    line += usage;
    if (!defaultIsZeroValue(f)) {
      line += f.value.type === "string" ? ` (default ${goQuote(f.defValue)})` : ` (default ${f.defValue})`;
    }
    if (f.deprecated !== "") line += ` (DEPRECATED: ${f.deprecated})`;
    lines.push(line);
  });
  let out = "";
  for (const line of lines) {
    const sidx = line.indexOf("\x00");
    const spacing = " ".repeat(maxlen - sidx);
    const rest = line
      .slice(sidx + 1)
      .split("\n")
      .join(`\n${" ".repeat(maxlen + 2)}`);
    out += `${line.slice(0, sidx)} ${spacing} ${rest}\n`;
  }
  return out;
}

function namePadding(cmd: Command): number {
  const siblings = cmd.parent?.commands() ?? [];
  const max = Math.max(0, ...siblings.map((c) => c.name().length));
  return Math.max(minNamePadding, max);
}

function commandPathPadding(cmd: Command): number {
  const siblings = cmd.parent?.commands() ?? [];
  const max = Math.max(0, ...siblings.map((c) => c.commandPath().length));
  return Math.max(minCommandPathPadding, max);
}

/** renderCobraUsage is cobra's defaultUsageFunc. */
export function renderCobraUsage(c: Command): string {
  let w = "Usage:";
  if (c.runnable()) w += `\n  ${c.useLine()}`;
  if (c.hasAvailableSubCommands()) w += `\n  ${c.commandPath()} [command]`;
  if (c.example !== "") w += `\n\nExamples:\n${c.example}`;
  if (c.hasAvailableSubCommands()) {
    w += "\n\nAvailable Commands:";
    for (const sub of c.commands()) {
      if (sub.isAvailableCommand() || sub.name() === "help")
        w += `\n  ${rpad(sub.name(), namePadding(sub))} ${sub.short}`;
    }
  }
  const local = c.localFlags();
  if (local.hasAvailableFlags()) w += `\n\nFlags:\n${trimRightSpace(flagUsages(local))}`;
  const inherited = c.inheritedFlags();
  if (inherited.hasAvailableFlags()) w += `\n\nGlobal Flags:\n${trimRightSpace(flagUsages(inherited))}`;
  if (c.hasHelpSubCommands()) {
    w += "\n\nAdditional help topics:";
    for (const sub of c.commands()) {
      if (sub.isAdditionalHelpTopicCommand())
        w += `\n  ${rpad(sub.commandPath(), commandPathPadding(sub))} ${sub.short}`;
    }
  }
  if (c.hasAvailableSubCommands())
    w += `\n\nUse "${c.commandPath()} [command] --help" for more information about a command.`;
  return `${w}\n`;
}

/** cobraUsage is cobra's default usage function: it writes to cobra's OutOrStderr writer. */
export const cobraUsage: UsageFn = (cmd, out) => out(renderCobraUsage(cmd));

/** cobraHelp is cobra's default help: Long (or Short), a blank line, then the usage, on standard output. */
export function cobraHelp(cmd: Command): void {
  const text = (cmd.long !== "" ? cmd.long : cmd.short).replace(/\s+$/u, "");
  let out = text !== "" ? `${text}\n\n` : "";
  if (cmd.runnable() || cmd.hasSubCommands()) out += cmd.usageString();
  cmd.outOrStdout()(out);
}
