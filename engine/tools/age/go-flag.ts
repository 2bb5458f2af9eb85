// Go's standard `flag` package as age and age-keygen use it (flag.CommandLine, ExitOnError): `-x` and `--x` alike,
// `-o FILE` or `-o=FILE`, parsing stops at the first argument that is not a flag (or after `--`), and the
// errors print as Go prints them (`flag provided but not defined: -x`, `flag needs an argument: -o`) followed
// by the program's usage, exit status 2. `-h`/`-help` print the usage and exit 0.

import { ExitSignal, type CliIo } from "../cobra/io.ts";

/** GoFlag is one registered name: a boolean switch, or a flag taking a value (`set` is called per use). */
export interface GoFlag {
  bool: boolean;
  set(value: string): void;
}

/** parseGoBool is strconv.ParseBool as flag's boolValue.Set uses it. */
function parseGoBool(s: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  return undefined;
}

/**
 * parseGoFlags parses `args` against `flags` (name → flag) and returns the remaining positional arguments. On a
 * bad flag it writes Go's error and `usage` to stderr and throws ExitSignal(2) (or ExitSignal(0) for -h).
 */
export function parseGoFlags(
  io: CliIo,
  args: readonly string[],
  flags: Record<string, GoFlag>,
  usage: string,
): string[] {
  const fail = (msg: string): never => {
    io.stderr(`${msg}\n${usage}\n`);
    throw new ExitSignal(2);
  };
  let i = 0;
  while (i < args.length) {
    const arg = args[i] as string;
    if (arg.length < 2 || arg[0] !== "-") break;
    let dashes = 1;
    if (arg[1] === "-") {
      dashes = 2;
      if (arg.length === 2) {
        i++;
        break;
      }
    }
    let name = arg.slice(dashes);
    if (name.length === 0 || name[0] === "-" || name[0] === "=") fail(`bad flag syntax: ${arg}`);
    i++;
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq > 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const flag = Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (flag === undefined) {
      if (name === "help" || name === "h") {
        io.stderr(`${usage}\n`);
        throw new ExitSignal(0);
      }
      fail(`flag provided but not defined: -${name}`);
      return [];
    }
    if (flag.bool) {
      if (value === undefined) {
        flag.set("true");
        continue;
      }
      const b = parseGoBool(value);
      if (b === undefined) fail(`invalid boolean value "${value}" for -${name}: parse error`);
      flag.set(String(b));
      continue;
    }
    if (value === undefined) {
      if (i >= args.length) fail(`flag needs an argument: -${name}`);
      value = args[i] as string;
      i++;
    }
    flag.set(value);
  }
  return args.slice(i);
}
