// A port of spf13/pflag's FlagSet semantics (v1.0.10, as cobra 1.10 uses it): GNU-style `--flag=v`,
// `--flag v`, `-w v`, `-wv`, `-w=v`, bool flags without a value, `--` ending flag parsing, interspersed
// positional arguments, and pflag's exact error texts (`unknown flag: --bogus`, `unknown shorthand flag: 'v'
// in -v`, `flag needs an argument: --rev`, `invalid argument "abc" for "--rev" flag: ...`).

import { formatGoDurationNs, parseGoDuration } from "../../go/go-duration.ts";
import { GoError, goQuote, goQuoteRune, parseBool, parseIntBig, parseUintBig } from "../../go/go-strconv.ts";

/** FlagValue is pflag's Value: set may update the value even when it reports an error (as Go's do). */
export interface FlagValue {
  /** type is the pflag type name ("bool", "string", "int64", "duration", "stringSlice", ...). */
  readonly type: string;
  set(s: string): void;
  string(): string;
}

/** Flag is one defined flag; the same object is shared by every FlagSet that holds it (as in pflag). */
export class Flag {
  changed = false;
  hidden = false;
  deprecated = "";
  /** annotations carries cobra's markers (required flag, flag set by cobra). */
  readonly annotations = new Map<string, string[]>();
  constructor(
    readonly name: string,
    readonly shorthand: string,
    readonly usage: string,
    readonly value: FlagValue,
    readonly defValue: string,
    readonly noOptDefVal: string,
  ) {}
}

/** FlagError is a parse or set error; its message is pflag's. */
export class FlagError extends GoError {
  override name = "FlagError";
}

/** HelpRequested is pflag's ErrHelp (`-h`/`--help` given but not defined). */
export class HelpRequested extends GoError {
  constructor() {
    super("pflag: help requested");
  }
}

function invalidValue(flag: Flag, value: string, cause: unknown): FlagError {
  const flagName = flag.shorthand !== "" ? `-${flag.shorthand}, --${flag.name}` : `--${flag.name}`;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new FlagError(`invalid argument ${goQuote(value)} for ${goQuote(flagName)} flag: ${why}`);
}

/** FlagSet holds flags by name and shorthand and parses arguments the way pflag does. */
export class FlagSet {
  private readonly formal = new Map<string, Flag>();
  private readonly shorthands = new Map<string, Flag>();
  private readonly insertion: Flag[] = [];
  /** sortFlags makes visitAll lexicographical (pflag's default); false keeps insertion order. */
  sortFlags = true;
  private positional: string[] = [];
  private lenAtDash = -1;

  constructor(readonly name: string) {}

  /** addFlag adds a flag object; a second flag with the same name is a programming error. */
  addFlag(flag: Flag): void {
    if (this.formal.has(flag.name)) throw new Error(`${this.name} flag redefined: ${flag.name}`);
    this.formal.set(flag.name, flag);
    this.insertion.push(flag);
    if (flag.shorthand !== "") {
      if (flag.shorthand.length > 1) throw new Error(`${flag.shorthand} shorthand is more than one ASCII character`);
      if (this.shorthands.has(flag.shorthand)) {
        throw new Error(`unable to redefine ${goQuote(flag.shorthand)} shorthand in ${goQuote(this.name)} flagset`);
      }
      this.shorthands.set(flag.shorthand, flag);
    }
  }

  /** addFlagSet adds every flag of `other` whose name is not defined here yet. */
  addFlagSet(other: FlagSet): void {
    for (const f of other.insertion) if (!this.formal.has(f.name)) this.addFlag(f);
  }

  lookup(name: string): Flag | undefined {
    return this.formal.get(name);
  }

  shorthandLookup(short: string): Flag | undefined {
    return this.shorthands.get(short);
  }

  hasFlags(): boolean {
    return this.formal.size > 0;
  }

  hasAvailableFlags(): boolean {
    return this.insertion.some((f) => !f.hidden);
  }

  /** visitAll calls fn for each flag, sorted by name unless sortFlags is false. */
  visitAll(fn: (f: Flag) => void): void {
    const list = this.sortFlags
      ? [...this.insertion].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      : this.insertion;
    list.forEach(fn);
  }

  /** set is FlagSet.Set: it sets by name, marks the flag changed and wraps value errors. */
  set(name: string, value: string): void {
    const flag = this.formal.get(name);
    if (!flag) throw new FlagError(`no such flag -${name}`);
    try {
      flag.value.set(value);
    } catch (e) {
      throw invalidValue(flag, value, e);
    }
    flag.changed = true;
  }

  /** get returns the typed value of a flag (pflag's GetBool/GetString/...), or throws when undefined. */
  private value(name: string): FlagValue {
    const f = this.formal.get(name);
    if (!f) throw new FlagError(`flag accessed but not defined: ${name}`);
    return f.value;
  }

  getBool(name: string): boolean {
    return (this.value(name) as BoolValue).value;
  }

  getString(name: string): string {
    return (this.value(name) as StringValue).value;
  }

  /** getInt returns int/int64/uint values as numbers. */
  getInt(name: string): number {
    return Number((this.value(name) as IntValue).value);
  }

  getBigInt(name: string): bigint {
    return (this.value(name) as IntValue).value;
  }

  /** getDuration returns nanoseconds. */
  getDuration(name: string): number {
    return (this.value(name) as DurationValue).ns;
  }

  getStringSlice(name: string): string[] {
    return [...(this.value(name) as StringSliceValue).values];
  }

  /** args are the positional arguments left after parse. */
  args(): string[] {
    return this.positional;
  }

  /** argsLenAtDash is how many positional arguments preceded `--` (-1 when there was none). */
  argsLenAtDash(): number {
    return this.lenAtDash;
  }

  /** parse consumes flags from `args`; it throws FlagError (or HelpRequested) as pflag returns them. */
  parse(args: readonly string[]): void {
    this.positional = [];
    this.lenAtDash = -1;
    let rest = [...args];
    while (rest.length > 0) {
      const s = rest.shift() as string;
      if (s.length === 0 || s[0] !== "-" || s.length === 1) {
        this.positional.push(s);
        continue;
      }
      if (s[1] === "-") {
        if (s.length === 2) {
          this.lenAtDash = this.positional.length;
          this.positional.push(...rest);
          return;
        }
        rest = this.parseLong(s, rest);
      } else {
        rest = this.parseShort(s, rest);
      }
    }
  }

  private parseLong(s: string, rest: string[]): string[] {
    let name = s.slice(2);
    if (name.length === 0 || name[0] === "-" || name[0] === "=") throw new FlagError(`bad flag syntax: ${s}`);
    const eq = name.indexOf("=");
    const inlineValue = eq >= 0 ? name.slice(eq + 1) : undefined;
    if (eq >= 0) name = name.slice(0, eq);
    const flag = this.formal.get(name);
    if (!flag) {
      if (name === "help") throw new HelpRequested();
      throw new FlagError(`unknown flag: --${name}`);
    }
    let value: string;
    if (inlineValue !== undefined) value = inlineValue;
    else if (flag.noOptDefVal !== "") value = flag.noOptDefVal;
    else if (rest.length > 0) value = rest.shift() as string;
    else throw new FlagError(`flag needs an argument: --${name}`);
    this.set(flag.name, value);
    return rest;
  }

  private parseShort(s: string, rest: string[]): string[] {
    let shorthands = s.slice(1);
    while (shorthands.length > 0) {
      const c = shorthands[0] as string;
      const flag = this.shorthands.get(c);
      if (!flag) {
        if (c === "h") throw new HelpRequested();
        throw new FlagError(`unknown shorthand flag: ${goQuoteRune(c.codePointAt(0) as number)} in -${shorthands}`);
      }
      let value: string;
      let next = shorthands.slice(1);
      if (shorthands.length > 2 && shorthands[1] === "=") {
        value = shorthands.slice(2);
        next = "";
      } else if (flag.noOptDefVal !== "") {
        value = flag.noOptDefVal;
      } else if (shorthands.length > 1) {
        value = shorthands.slice(1);
        next = "";
      } else if (rest.length > 0) {
        value = rest.shift() as string;
      } else {
        throw new FlagError(`flag needs an argument: ${goQuoteRune(c.codePointAt(0) as number)} in -${shorthands}`);
      }
      this.set(flag.name, value);
      shorthands = next;
    }
    return rest;
  }

  // Typed definitions. Each returns a getter for the current value.

  private define(name: string, short: string, usage: string, value: FlagValue, noOpt = ""): Flag {
    const f = new Flag(name, short, usage, value, value.string(), noOpt);
    this.addFlag(f);
    return f;
  }

  bool(name: string, short: string, def: boolean, usage: string): () => boolean {
    const v = new BoolValue(def);
    this.define(name, short, usage, v, "true");
    return () => v.value;
  }

  string(name: string, short: string, def: string, usage: string): () => string {
    const v = new StringValue(def);
    this.define(name, short, usage, v);
    return () => v.value;
  }

  int(name: string, short: string, def: number, usage: string): () => number {
    const v = new IntValue("int", def, true, 64);
    this.define(name, short, usage, v);
    return () => Number(v.value);
  }

  int64(name: string, short: string, def: number, usage: string): () => number {
    const v = new IntValue("int64", def, true, 64);
    this.define(name, short, usage, v);
    return () => Number(v.value);
  }

  uint(name: string, short: string, def: number, usage: string): () => number {
    const v = new IntValue("uint", def, false, 64);
    this.define(name, short, usage, v);
    return () => Number(v.value);
  }

  uint64(name: string, short: string, def: bigint | number, usage: string): () => bigint {
    const v = new IntValue("uint64", def, false, 64);
    this.define(name, short, usage, v);
    return () => v.value;
  }

  /** duration values are nanoseconds. */
  duration(name: string, short: string, defNs: number, usage: string): () => number {
    const v = new DurationValue(defNs);
    this.define(name, short, usage, v);
    return () => v.ns;
  }

  stringSlice(name: string, short: string, def: string[], usage: string): () => string[] {
    const v = new StringSliceValue(def);
    this.define(name, short, usage, v);
    return () => v.values;
  }
}

class BoolValue implements FlagValue {
  readonly type = "bool";
  constructor(public value: boolean) {}
  set(s: string): void {
    let v = false;
    try {
      v = parseBool(s);
    } finally {
      this.value = v;
    }
  }
  string(): string {
    return String(this.value);
  }
}

class StringValue implements FlagValue {
  readonly type = "string";
  constructor(public value: string) {}
  set(s: string): void {
    this.value = s;
  }
  string(): string {
    return this.value;
  }
}

class IntValue implements FlagValue {
  value: bigint;
  constructor(
    readonly type: string,
    def: number | bigint,
    private readonly signed: boolean,
    private readonly bits: number,
  ) {
    this.value = BigInt(def);
  }
  set(s: string): void {
    // Go assigns the parse result even on error: 0 for syntax errors, the clamped value for range errors.
    try {
      this.value = this.signed ? parseIntBig(s, 0, this.bits) : parseUintBig(s, 0, this.bits);
    } catch (e) {
      this.value = 0n;
      throw e;
    }
  }
  string(): string {
    return this.value.toString();
  }
}

class DurationValue implements FlagValue {
  readonly type = "duration";
  constructor(public ns: number) {}
  set(s: string): void {
    try {
      this.ns = parseGoDuration(s);
    } catch (e) {
      this.ns = 0;
      throw e;
    }
  }
  string(): string {
    return formatGoDurationNs(this.ns);
  }
}

class StringSliceValue implements FlagValue {
  readonly type = "stringSlice";
  private changedOnce = false;
  constructor(public values: string[]) {}
  set(s: string): void {
    const v = readCsvRecord(s);
    this.values = this.changedOnce ? [...this.values, ...v] : v;
    this.changedOnce = true;
  }
  string(): string {
    return `[${writeCsvRecord(this.values)}]`;
  }
}

/** readCsvRecord reads one record as Go's encoding/csv Reader does for pflag's string slices. */
export function readCsvRecord(line: string): string[] {
  if (line === "") return [];
  const fields: string[] = [];
  let i = 0;
  const col = () => i + 1;
  for (;;) {
    if (line[i] === '"') {
      let field = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0)
          throw new GoError(
            `record on line 1; parse error on line 2, column 0: extraneous or missing " in quoted-field`,
          );
        field += line.slice(i, q);
        i = q + 1;
        if (line[i] === '"') {
          field += '"';
          i++;
        } else if (line[i] === "," || i >= line.length) {
          break;
        } else {
          throw new GoError(`parse error on line 1, column ${col()}: extraneous or missing " in quoted-field`);
        }
      }
      fields.push(field);
    } else {
      const end = line.indexOf(",", i);
      const field = end < 0 ? line.slice(i) : line.slice(i, end);
      const bare = field.indexOf('"');
      if (bare >= 0) throw new GoError(`parse error on line 1, column ${i + bare + 1}: bare " in non-quoted-field`);
      fields.push(field);
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) break;
    i++; // the comma
    if (i >= line.length) {
      fields.push("");
      break;
    }
  }
  return fields;
}

/** writeCsvRecord writes fields as Go's csv.Writer does (quoting only where needed), without newline. */
export function writeCsvRecord(fields: readonly string[]): string {
  return fields
    .map((f) => {
      const needs = f === "" ? false : /[",\r\n]/.test(f) || f[0] === " " || f[0] === "\t" || f === "\\.";
      return needs ? `"${f.replace(/"/g, '""')}"` : f;
    })
    .join(",");
}
