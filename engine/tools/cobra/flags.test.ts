// pflag parsing and etcd's environment binding.

import { describe, expect, it } from "vitest";
import { setPflagsFromEnv } from "./env.ts";
import { FlagSet, readCsvRecord } from "./flags.ts";
import type { ExitSignal } from "./io.ts";
import { memoryIo } from "./testing.ts";

function globals() {
  const fs = new FlagSet("etcdctl");
  return {
    fs,
    endpoints: fs.stringSlice("endpoints", "", ["127.0.0.1:2379"], "gRPC endpoints"),
    out: fs.string("write-out", "w", "simple", "set the output format"),
    hex: fs.bool("hex", "", false, "hex"),
    dial: fs.duration("dial-timeout", "", 2e9, "dial timeout"),
    rev: fs.int64("rev", "", 0, "rev"),
    interactive: fs.bool("interactive", "i", false, "interactive"),
  };
}

describe("pflag parsing", () => {
  it("accepts GNU forms and keeps positional arguments in order", () => {
    const g = globals();
    g.fs.parse(["get", "--endpoints=a:1,b:2", "-w", "json", "foo", "--hex", "--rev", "7", "-i", "--", "--not-a-flag"]);
    expect(g.fs.args()).toEqual(["get", "foo", "--not-a-flag"]);
    expect(g.endpoints()).toEqual(["a:1", "b:2"]);
    expect([g.out(), g.hex(), g.rev(), g.interactive()]).toEqual(["json", true, 7, true]);
    expect(g.fs.argsLenAtDash()).toBe(2);
  });

  it("parses attached shorthand values and repeated slices", () => {
    const g = globals();
    g.fs.parse(["-wjson", "--endpoints", "a", "--endpoints", "b", "--dial-timeout=500ms", "--hex=false"]);
    expect(g.out()).toBe("json");
    expect(g.endpoints()).toEqual(["a", "b"]);
    expect(g.dial()).toBe(500e6);
    expect(g.hex()).toBe(false);
  });

  it("reports errors with pflag's texts", () => {
    const errorOf = (args: string[]) => {
      try {
        globals().fs.parse(args);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(errorOf(["--bogus"])).toBe("unknown flag: --bogus");
    expect(errorOf(["-v"])).toBe("unknown shorthand flag: 'v' in -v");
    expect(errorOf(["-iv"])).toBe("unknown shorthand flag: 'v' in -v");
    expect(errorOf(["--rev"])).toBe("flag needs an argument: --rev");
    expect(errorOf(["-w"])).toBe("flag needs an argument: 'w' in -w");
    expect(errorOf(["--rev=abc"])).toBe(
      'invalid argument "abc" for "--rev" flag: strconv.ParseInt: parsing "abc": invalid syntax',
    );
    expect(errorOf(["--dial-timeout", "5"])).toBe(
      'invalid argument "5" for "--dial-timeout" flag: time: missing unit in duration "5"',
    );
    expect(errorOf(["-i=maybe"])).toBe(
      'invalid argument "maybe" for "-i, --interactive" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(errorOf(["---x"])).toBe("bad flag syntax: ---x");
  });

  it("reads string slices as CSV", () => {
    expect(readCsvRecord('a,"b,c",d')).toEqual(["a", "b,c", "d"]);
    expect(readCsvRecord("a,")).toEqual(["a", ""]);
    expect(() => readCsvRecord('a"b')).toThrow('bare " in non-quoted-field');
  });
});

describe("ETCDCTL_* environment", () => {
  it("fills flags not given on the command line", () => {
    const g = globals();
    const io = memoryIo({ env: { ETCDCTL_ENDPOINTS: "x:1,y:2", ETCDCTL_WRITE_OUT: "json" } });
    g.fs.parse([]);
    setPflagsFromEnv(io, "ETCDCTL", g.fs);
    expect(g.endpoints()).toEqual(["x:1", "y:2"]);
    expect(g.out()).toBe("json");
    expect(io.err()).toBe("");
  });

  it("warns about unknown ETCDCTL_ variables such as ETCDCTL_API", () => {
    const g = globals();
    const io = memoryIo({ env: { ETCDCTL_API: "3" } });
    setPflagsFromEnv(io, "ETCDCTL", g.fs);
    expect(io.err()).toBe(
      '{"level":"warn","ts":"2026-11-30T04:52:01.853000Z","caller":"flags/flag.go:94","msg":"unrecognized environment variable","environment-variable":"ETCDCTL_API=3"}\n',
    );
  });

  it("exits when a variable is shadowed by its flag", () => {
    const g = globals();
    const io = memoryIo({ env: { ETCDCTL_WRITE_OUT: "json" } });
    g.fs.parse(["-w", "table"]);
    let code = -1;
    try {
      setPflagsFromEnv(io, "ETCDCTL", g.fs);
    } catch (e) {
      code = (e as ExitSignal).code;
    }
    expect(code).toBe(1);
    expect(io.err()).toContain('"level":"fatal"');
    expect(io.err()).toContain(
      '"msg":"conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))","environment-variable":"ETCDCTL_WRITE_OUT"',
    );
    expect(g.out()).toBe("table");
  });
});
