// A port of spf13/cobra's Command (v1.10, the version etcd 3.6 builds with) — only what etcdctl, etcdutl
// and etcd use, but with cobra's exact behaviour: command lookup with prefix matching, "Did you mean
// this?" suggestions, persistent/local/inherited flag sets, the implicit `help` command and `-h` flag,
// non-runnable commands printing their help, and the order and streams of error messages.

import type { Flag } from "./flags.ts";
import { FlagError, FlagSet, HelpRequested } from "./flags.ts";
import { goQuote } from "../../go/go-strconv.ts";
import type { CliIo } from "./io.ts";

/** RunFn is a command body; it may exit through ExitSignal. */
export type RunFn = (cmd: Command, args: string[]) => void | Promise<void>;

/** ArgsFn validates positional arguments (cobra.PositionalArgs); it returns an error message or undefined. */
export type ArgsFn = (cmd: Command, args: string[]) => string | undefined;

/** UsageFn prints a command's usage; `out` is cobra's OutOrStderr writer (captured by usageString). */
export type UsageFn = (cmd: Command, out: (s: string) => void) => void;

/** CommandSpec is what a command definition provides (the fields of cobra.Command we use). */
export interface CommandSpec {
  use: string;
  short?: string;
  long?: string;
  example?: string;
  suggestFor?: string[];
  hidden?: boolean;
  disableFlagsInUseLine?: boolean;
  validArgs?: string[];
  args?: ArgsFn;
  run?: RunFn;
}

/** CommandError is an error cobra returns from Execute (printed as `Error: <message>`). */
export class CommandError extends Error {
  override name = "CommandError";
}

const helpFlagName = "help";

/** Command is one node of the command tree. */
export class Command {
  use: string;
  short: string;
  long: string;
  example: string;
  suggestFor: string[];
  hidden: boolean;
  disableFlagsInUseLine: boolean;
  validArgs: string[];
  args: ArgsFn | undefined;
  run: RunFn | undefined;
  parent: Command | undefined;
  /** silenceErrors is cobra's SilenceErrors (set on a root, it silences the whole tree). */
  silenceErrors = false;
  /** silenceUsage is cobra's SilenceUsage (set on a root, errors never print the usage). */
  silenceUsage = false;
  /** enablePrefixMatching is cobra's global EnablePrefixMatching (etcdctl and etcdutl turn it on). */
  enablePrefixMatching = false;
  /** usageFn and helpFn override cobra's defaults for this command and its descendants. */
  usageFn: UsageFn | undefined;
  helpFn: ((cmd: Command) => void) | undefined;

  private readonly children: Command[] = [];
  private sorted = false;
  private helpCommand: Command | undefined;
  private localSet: FlagSet | undefined;
  private persistentSet: FlagSet | undefined;
  private parentsSet: FlagSet | undefined;
  private ioRef: CliIo | undefined;
  private captured: ((s: string) => void) | undefined;

  constructor(spec: CommandSpec) {
    this.use = spec.use;
    this.short = spec.short ?? "";
    this.long = spec.long ?? "";
    this.example = spec.example ?? "";
    this.suggestFor = spec.suggestFor ?? [];
    this.hidden = spec.hidden ?? false;
    this.disableFlagsInUseLine = spec.disableFlagsInUseLine ?? false;
    this.validArgs = spec.validArgs ?? [];
    this.args = spec.args;
    this.run = spec.run;
  }

  // ---- tree ----

  addCommand(...cmds: Command[]): void {
    for (const c of cmds) {
      c.parent = this;
      this.children.push(c);
      this.sorted = false;
    }
  }

  removeCommand(cmd: Command): void {
    const i = this.children.indexOf(cmd);
    if (i >= 0) this.children.splice(i, 1);
    cmd.parent = undefined;
  }

  /** commands returns the children sorted by name (cobra's EnableCommandSorting). */
  commands(): Command[] {
    if (!this.sorted) {
      this.children.sort((a, b) => (a.name() < b.name() ? -1 : a.name() > b.name() ? 1 : 0));
      this.sorted = true;
    }
    return this.children;
  }

  root(): Command {
    return this.parent ? this.parent.root() : this;
  }

  hasParent(): boolean {
    return this.parent !== undefined;
  }

  hasSubCommands(): boolean {
    return this.children.length > 0;
  }

  name(): string {
    const i = this.use.indexOf(" ");
    return i >= 0 ? this.use.slice(0, i) : this.use;
  }

  commandPath(): string {
    return this.parent ? `${this.parent.commandPath()} ${this.name()}` : this.name();
  }

  useLine(): string {
    let line = this.parent ? `${this.parent.commandPath()} ${this.use}` : this.use;
    if (this.disableFlagsInUseLine) return line;
    if (this.flags().hasAvailableFlags() && !line.includes("[flags]")) line += " [flags]";
    return line;
  }

  runnable(): boolean {
    return this.run !== undefined;
  }

  isHelpCommand(): boolean {
    return this.parent !== undefined && this.parent.helpCommand === this;
  }

  isAvailableCommand(): boolean {
    if (this.hidden) return false;
    if (this.isHelpCommand()) return false;
    return this.runnable() || this.hasAvailableSubCommands();
  }

  hasAvailableSubCommands(): boolean {
    return this.children.some((c) => c.isAvailableCommand());
  }

  isAdditionalHelpTopicCommand(): boolean {
    if (this.runnable() || this.hidden) return false;
    return this.children.every((c) => c.isAdditionalHelpTopicCommand());
  }

  hasHelpSubCommands(): boolean {
    return this.children.some((c) => c.isAdditionalHelpTopicCommand());
  }

  // ---- flags ----

  /** flags is the complete flag set of this command (local, own persistent, inherited persistent). */
  flags(): FlagSet {
    this.localSet ??= new FlagSet(this.name());
    return this.localSet;
  }

  persistentFlags(): FlagSet {
    this.persistentSet ??= new FlagSet(this.name());
    return this.persistentSet;
  }

  private parentsPflags(): FlagSet {
    this.parentsSet ??= Object.assign(new FlagSet(this.name()), { sortFlags: false });
    for (let p = this.parent; p; p = p.parent) this.parentsSet.addFlagSet(p.persistentFlags());
    return this.parentsSet;
  }

  private mergePersistentFlags(): void {
    const parents = this.parentsPflags();
    this.flags().addFlagSet(this.persistentFlags());
    this.flags().addFlagSet(parents);
  }

  /** localFlags are the flags defined on this command (not inherited). */
  localFlags(): FlagSet {
    this.mergePersistentFlags();
    const out = new FlagSet(this.name());
    const parents = this.parentsPflags();
    const add = (f: Flag) => {
      if (!out.lookup(f.name) && f !== parents.lookup(f.name)) out.addFlag(f);
    };
    this.flags().visitAll(add);
    this.persistentFlags().visitAll(add);
    return out;
  }

  /** inheritedFlags are the persistent flags of the ancestors not shadowed locally. */
  inheritedFlags(): FlagSet {
    this.mergePersistentFlags();
    const out = new FlagSet(this.name());
    const local = this.localFlags();
    this.parentsPflags().visitAll((f) => {
      if (!out.lookup(f.name) && !local.lookup(f.name)) out.addFlag(f);
    });
    return out;
  }

  /** flag finds a flag by name on this command or its ancestors' persistent flags. */
  flag(name: string): Flag | undefined {
    return this.flags().lookup(name) ?? this.persistentFlags().lookup(name) ?? this.parentsPflags().lookup(name);
  }

  initDefaultHelpFlag(): void {
    this.mergePersistentFlags();
    if (!this.flags().lookup(helpFlagName)) {
      this.flags().bool(helpFlagName, "h", false, `help for ${this.name() === "" ? "this command" : this.name()}`);
      this.flags().lookup(helpFlagName)?.annotations.set("cobra_annotation_flag_set_by_cobra", ["true"]);
    }
  }

  // ---- output ----

  io(): CliIo {
    const io = this.root().ioRef;
    if (!io) throw new Error("command executed without io");
    return io;
  }

  /** outOrStderr is cobra's OutOrStderr (usage text goes here by default). */
  outOrStderr(): (s: string) => void {
    const cap = this.root().captured;
    return cap ?? ((s) => this.io().stderr(s));
  }

  errOrStderr(): (s: string) => void {
    const cap = this.root().captured;
    return cap ?? ((s) => this.io().stderr(s));
  }

  outOrStdout(): (s: string) => void {
    const cap = this.root().captured;
    return cap ?? ((s) => this.io().stdout(s));
  }

  private usageFunc(): UsageFn {
    const fn = this.usageFn ?? this.parent?.usageFunc();
    if (!fn) throw new Error("no usage function configured");
    return fn;
  }

  /** usage prints the usage (cobra's Usage()). */
  usage(): void {
    this.mergePersistentFlags();
    this.usageFunc()(this, this.outOrStderr());
  }

  /** usageString is cobra's UsageString(): the usage as written to cobra's own writers. */
  usageString(): string {
    const root = this.root();
    const before = root.captured;
    let buf = "";
    root.captured = (s) => {
      buf += s;
    };
    try {
      this.usage();
    } finally {
      root.captured = before;
    }
    return buf;
  }

  /** help prints the help (cobra's Help(); etcd tools set the help template to the usage string). */
  help(): void {
    const fn = this.helpFunc();
    if (fn) fn(this);
    else this.outOrStdout()(this.usageString());
  }

  private helpFunc(): ((cmd: Command) => void) | undefined {
    return this.helpFn ?? this.parent?.helpFunc();
  }

  // ---- lookup ----

  private findNext(next: string): Command | undefined {
    const matches: Command[] = [];
    for (const c of this.children) {
      if (c.name() === next) return c;
      if (this.root().enablePrefixMatching && c.name().startsWith(next)) matches.push(c);
    }
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** suggestionsFor lists commands within Levenshtein distance 2, by prefix, or by SuggestFor. */
  suggestionsFor(typed: string): string[] {
    const out: string[] = [];
    for (const c of this.commands()) {
      if (!c.isAvailableCommand()) continue;
      const byDistance = levenshtein(typed.toLowerCase(), c.name().toLowerCase()) <= 2;
      const byPrefix = c.name().toLowerCase().startsWith(typed.toLowerCase());
      if (byDistance || byPrefix) out.push(c.name());
      for (const s of c.suggestFor) if (s.toLowerCase() === typed.toLowerCase()) out.push(c.name());
    }
    return out;
  }

  private findSuggestions(arg: string): string {
    const s = this.suggestionsFor(arg);
    if (s.length === 0) return "";
    return `\n\nDid you mean this?\n${s.map((x) => `\t${x}\n`).join("")}`;
  }

  /** find walks the tree along the non-flag arguments (cobra's Find). */
  find(args: string[]): { cmd: Command; args: string[]; error?: string } {
    const inner = (c: Command, innerArgs: string[]): { cmd: Command; args: string[] } => {
      const words = stripFlags(innerArgs, c);
      if (words.length === 0) return { cmd: c, args: innerArgs };
      const next = c.findNext(words[0] as string);
      if (!next) return { cmd: c, args: innerArgs };
      return inner(next, argsMinusFirstX(innerArgs, words[0] as string, c));
    };
    const { cmd, args: rest } = inner(this, args);
    if (cmd.args === undefined) {
      const words = stripFlags(rest, cmd);
      if (cmd.hasSubCommands() && !cmd.hasParent() && words.length > 0) {
        const first = words[0] as string;
        return {
          cmd,
          args: rest,
          error: `unknown command ${goQuote(first)} for ${goQuote(cmd.commandPath())}${cmd.findSuggestions(first)}`,
        };
      }
    }
    return { cmd, args: rest };
  }

  // ---- execution ----

  private initDefaultHelpCmd(): void {
    if (!this.hasSubCommands()) return;
    if (!this.helpCommand) {
      const helpCmd = new Command({
        use: "help [command]",
        short: "Help about any command",
        long: `Help provides help for any command in the application.\nSimply type ${this.name()} help [path to command] for full details.`,
        run: (c, args) => {
          const found = c.root().find(args);
          if (found.error !== undefined) {
            c.outOrStderr()(`Unknown help topic [${args.map((a) => `\`${a}\``).join(" ")}]\n`);
            c.root().usage();
          } else {
            found.cmd.initDefaultHelpFlag();
            found.cmd.help();
          }
        },
      });
      this.helpCommand = helpCmd;
    }
    this.removeCommand(this.helpCommand);
    this.addCommand(this.helpCommand);
  }

  private async executeCommand(args: string[]): Promise<Error | "help" | undefined> {
    this.initDefaultHelpFlag();
    this.mergePersistentFlags();
    try {
      this.flags().parse(args);
    } catch (e) {
      if (e instanceof HelpRequested) return "help";
      if (e instanceof FlagError) return e;
      throw e;
    }
    if (this.flags().lookup(helpFlagName)?.value.string() === "true") return "help";
    if (!this.runnable()) return "help";
    const positional = this.flags().args();
    const argErr = this.args ? this.args(this, positional) : undefined;
    if (argErr !== undefined) return new CommandError(argErr);
    const missing: string[] = [];
    this.flags().visitAll((f) => {
      if (f.annotations.get("cobra_annotation_bash_completion_one_required_flag")?.[0] === "true" && !f.changed) {
        missing.push(f.name);
      }
    });
    if (missing.length > 0) return new CommandError(`required flag(s) "${missing.join('", "')}" not set`);
    await (this.run as RunFn)(this, positional);
    return undefined;
  }

  /**
   * execute runs the tool on `args` (cobra's ExecuteC). It returns the error cobra's Execute returns;
   * errors have already been printed to stderr the way cobra prints them.
   */
  async execute(io: CliIo, args: string[]): Promise<Error | undefined> {
    const root = this.root();
    root.ioRef = io;
    root.initDefaultHelpCmd();
    const found = root.find(args);
    if (found.error !== undefined) {
      if (!found.cmd.silenceErrors && !root.silenceErrors) {
        io.stderr(`Error: ${found.error}\n`);
        io.stderr(`Run '${found.cmd.commandPath()} --help' for usage.\n`);
      }
      return new CommandError(found.error);
    }
    const cmd = found.cmd;
    const err = await cmd.executeCommand(found.args);
    if (err === "help") {
      cmd.help();
      return undefined;
    }
    if (err) {
      if (!cmd.silenceErrors && !root.silenceErrors) io.stderr(`Error: ${err.message}\n`);
      if (!cmd.silenceUsage && !root.silenceUsage) cmd.outOrStderr()(`${cmd.usageString()}\n`);
      return err;
    }
    return undefined;
  }

  /** markFlagRequired marks a local flag as required (cobra's MarkFlagRequired). */
  markFlagRequired(name: string): void {
    this.flags().lookup(name)?.annotations.set("cobra_annotation_bash_completion_one_required_flag", ["true"]);
  }
}

function hasNoOptDefVal(name: string, fs: FlagSet): boolean {
  const f = fs.lookup(name);
  return f !== undefined && f.noOptDefVal !== "";
}

function shortHasNoOptDefVal(name: string, fs: FlagSet): boolean {
  if (name.length === 0) return false;
  const f = fs.shorthandLookup(name[0] as string);
  return f !== undefined && f.noOptDefVal !== "";
}

/** stripFlags removes flags (and the values of flags that take one) from args (cobra's stripFlags). */
function stripFlags(args: string[], c: Command): string[] {
  const flags = c.flags();
  c.localFlags(); // merges persistent flags as cobra's stripFlags does
  const commands: string[] = [];
  const rest = [...args];
  while (rest.length > 0) {
    const s = rest.shift() as string;
    if (s === "--") break;
    const longNeedsValue = s.startsWith("--") && !s.includes("=") && !hasNoOptDefVal(s.slice(2), flags);
    const shortNeedsValue =
      s.startsWith("-") && !s.includes("=") && s.length === 2 && !shortHasNoOptDefVal(s.slice(1), flags);
    if (longNeedsValue || shortNeedsValue) {
      if (rest.length <= 1) break;
      rest.shift();
      continue;
    }
    if (s !== "" && !s.startsWith("-")) commands.push(s);
  }
  return commands;
}

/** argsMinusFirstX removes the first occurrence of x that is not a flag value (cobra's argsMinusFirstX). */
function argsMinusFirstX(args: string[], x: string, c: Command): string[] {
  const flags = c.flags();
  for (let pos = 0; pos < args.length; pos++) {
    const s = args[pos] as string;
    if (s === "--") break;
    const longNeedsValue = s.startsWith("--") && !s.includes("=") && !hasNoOptDefVal(s.slice(2), flags);
    const shortNeedsValue =
      s.startsWith("-") && !s.includes("=") && s.length === 2 && !shortHasNoOptDefVal(s.slice(1), flags);
    if (longNeedsValue || shortNeedsValue) {
      pos++;
      continue;
    }
    if (!s.startsWith("-") && s === x) return [...args.slice(0, pos), ...args.slice(pos + 1)];
  }
  return args;
}

/** levenshtein is cobra's ld (byte-wise, callers lower-case first). */
export function levenshtein(s: string, t: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= s.length; i++) d.push([i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 0; j <= t.length; j++) (d[0] as number[])[j] = j;
  for (let j = 1; j <= t.length; j++) {
    for (let i = 1; i <= s.length; i++) {
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      if (s[i - 1] === t[j - 1]) row[j] = prev[j - 1] as number;
      else row[j] = Math.min(prev[j] as number, row[j - 1] as number, prev[j - 1] as number) + 1;
    }
  }
  return (d[s.length] as number[])[t.length] as number;
}

/** exactArgs is cobra.ExactArgs(n). */
export function exactArgs(n: number): ArgsFn {
  return (_cmd, args) => (args.length !== n ? `accepts ${n} arg(s), received ${args.length}` : undefined);
}

/** onlyValidArgs is cobra.OnlyValidArgs. */
export function onlyValidArgs(): ArgsFn {
  return (cmd, args) => {
    if (cmd.validArgs.length === 0) return undefined;
    const valid = cmd.validArgs.map((v) => v.split("\t")[0]);
    for (const a of args) {
      if (!valid.includes(a)) return `invalid argument ${goQuote(a)} for ${goQuote(cmd.commandPath())}`;
    }
    return undefined;
  };
}

/** matchAll is cobra.MatchAll. */
export function matchAll(...fns: ArgsFn[]): ArgsFn {
  return (cmd, args) => {
    for (const f of fns) {
      const e = f(cmd, args);
      if (e !== undefined) return e;
    }
    return undefined;
  };
}
