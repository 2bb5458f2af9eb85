// A parser with the semantics of Go's standard `flag` package, which etcd's server uses (not cobra/pflag):
// `-name` and `--name` are the same, `-name=value` / `-name value`, boolean flags take no separate value
// (`-name=false`), parsing stops at the first non-flag argument or after `--`, and the error texts are Go's.

import { parseGoDuration } from "../../go/go-duration.ts";
import { goQuote, parseBool } from "../../go/go-strconv.ts";

/** FlagKind says how a flag's value is parsed. */
export type FlagKind = "string" | "bool" | "uint" | "int" | "duration" | "urls" | "enum" | "ignored";

/** FlagSpec declares one flag: its kind, its default as etcd prints it, and what values it accepts. */
export interface FlagSpec {
  name: string;
  kind: FlagKind;
  /** def is the default value as a string ("" when none). */
  def: string;
  /** values lists the accepted values of an enum flag. */
  values?: readonly string[];
}

/** ParsedFlags holds the values given explicitly (by name) and the arguments after the flags. */
export interface ParsedFlags {
  explicit: Map<string, string>;
  rest: string[];
  help: boolean;
}

/** GoFlagError is a parse error carrying Go's text, e.g. `flag provided but not defined: -foo`. */
export class GoFlagError extends Error {
  override name = "GoFlagError";
}

/** parseGoFlags parses `args` against `specs` as Go's flag.FlagSet.Parse does. */
export function parseGoFlags(args: readonly string[], specs: ReadonlyMap<string, FlagSpec>): ParsedFlags {
  const explicit = new Map<string, string>();
  let i = 0;
  let help = false;
  while (i < args.length) {
    const arg = args[i] ?? "";
    if (arg.length < 2 || arg[0] !== "-") break;
    let body = arg.slice(1);
    if (body[0] === "-") {
      body = body.slice(1);
      if (body === "") {
        i++;
        break; // "--" terminates the flags
      }
    }
    if (body === "" || body[0] === "-" || body[0] === "=") throw new GoFlagError(`bad flag syntax: ${arg}`);
    i++;
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let value = eq >= 0 ? body.slice(eq + 1) : undefined;
    const spec = specs.get(name);
    if (!spec) {
      if (name === "help" || name === "h") {
        help = true;
        continue;
      }
      throw new GoFlagError(`flag provided but not defined: -${name}`);
    }
    if (spec.kind === "bool" || spec.kind === "ignored") {
      if (value === undefined) value = "true";
    } else if (value === undefined) {
      if (i >= args.length) throw new GoFlagError(`flag needs an argument: -${name}`);
      value = args[i] ?? "";
      i++;
    }
    const err = checkValue(spec, value);
    if (err) {
      if (spec.kind === "bool") throw new GoFlagError(`invalid boolean value ${goQuote(value)} for -${name}: ${err}`);
      throw new GoFlagError(`invalid value ${goQuote(value)} for flag -${name}: ${err}`);
    }
    explicit.set(name, value);
  }
  return { explicit, rest: args.slice(i), help };
}

/** checkValue validates a value for a flag; it returns Go's error text or undefined. */
export function checkValue(spec: FlagSpec, value: string): string | undefined {
  switch (spec.kind) {
    case "bool":
      return parseGoBool(value) === undefined ? "parse error" : undefined;
    case "uint":
      return /^(0|[1-9][0-9]*)$/.test(value) ? undefined : "parse error";
    case "int":
      return /^-?(0|[1-9][0-9]*)$/.test(value) ? undefined : "parse error";
    case "duration":
      return parseGoDurationMs(value) === undefined ? "parse error" : undefined;
    case "urls":
      return checkUrls(value);
    case "enum":
      // etcd's flags.SelectiveStringValue rejects anything else with a bare "invalid value".
      return spec.values?.includes(value) ? undefined : "invalid value";
    case "string":
    case "ignored":
      return undefined;
  }
}

/** parseGoBool is strconv.ParseBool, with undefined for what it rejects. */
export function parseGoBool(s: string): boolean | undefined {
  try {
    return parseBool(s);
  } catch {
    return undefined;
  }
}

/** parseGoDurationMs is time.ParseDuration ("100ms", "1h30m", "5s") in milliseconds, undefined for what it rejects. */
export function parseGoDurationMs(s: string): number | undefined {
  try {
    return parseGoDuration(s) / 1e6;
  } catch {
    return undefined;
  }
}

function checkUrls(value: string): string | undefined {
  for (const raw of value.split(",")) {
    const u = raw.trim();
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      return `parse ${goQuote(u)}: invalid URI for request`;
    }
    const scheme = url.protocol.replace(/:$/, "");
    if (!["http", "https", "unix", "unixs"].includes(scheme)) {
      return `URL scheme must be http, https, unix, or unixs: ${u}`;
    }
    if ((scheme === "http" || scheme === "https") && url.port === "" && !/:\d+$/.test(url.host)) {
      return `URL address does not have the form "host:port": ${u}`;
    }
    if (url.pathname !== "" && url.pathname !== "/") return `URL must not contain a path: ${u}`;
  }
  return undefined;
}
