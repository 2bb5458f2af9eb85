// etcd's pkg/flags SetPflagsFromEnv + verifyEnv (3.6): every global flag can come from `<PREFIX>_<FLAG>`
// (ETCDCTL_ENDPOINTS, ETCDCTL_WRITE_OUT, ...). A variable that is shadowed by the same flag on the command
// line is fatal; other `<PREFIX>_*` variables draw an "unrecognized environment variable" warning (so 3.6
// warns about the obsolete ETCDCTL_API=3). Both are zap JSON lines on stderr, as etcd logs them.

import type { FlagSet } from "./flags.ts";
import type { CliIo } from "./io.ts";
import { exitWith } from "./io.ts";
import { zapJsonLine } from "../../go/zap-json.ts";

/** flagToEnv is pkg/flags FlagToEnv: `write-out` → `ETCDCTL_WRITE_OUT`. */
export function flagToEnv(prefix: string, name: string): string {
  return `${prefix}_${name.replace(/-/g, "_").toUpperCase()}`;
}

/** EnvStack names the Go frames etcd 3.6 prints in the fatal line's stacktrace, innermost caller last. */
export type EnvStack = readonly string[];

/**
 * setPflagsFromEnv applies `<prefix>_*` variables to the flags of `fs` that were not given on the command
 * line, then checks the environment as etcd's verifyEnv does. Invalid values are ignored, as etcdctl ignores
 * the error SetPflagsFromEnv returns (the flag keeps what Go's Set left in it).
 */
export function setPflagsFromEnv(io: CliIo, prefix: string, fs: FlagSet, stack: EnvStack = []): void {
  const alreadySet = new Set<string>();
  const used = new Set<string>();
  fs.visitAll((f) => {
    const key = flagToEnv(prefix, f.name);
    if (f.changed) alreadySet.add(key);
    if (alreadySet.has(key)) return;
    const val = io.getenv(key);
    if (val === "") return;
    used.add(key);
    try {
      fs.set(f.name, val);
    } catch {
      // etcdctl discards SetPflagsFromEnv's error.
    }
  });
  for (const env of io.environ()) {
    const eq = env.indexOf("=");
    const key = eq >= 0 ? env.slice(0, eq) : env;
    if (eq < 0) {
      io.stderr(
        zapJsonLine({
          level: "warn",
          tsMs: io.nowMs(),
          caller: "flags/flag.go:78",
          msg: "found invalid environment variable",
          fields: [["environment-variable", env]],
        }),
      );
    }
    if (used.has(key)) continue;
    if (alreadySet.has(key)) {
      io.stderr(
        zapJsonLine({
          level: "fatal",
          tsMs: io.nowMs(),
          caller: "flags/flag.go:86",
          msg: "conflicting environment variable is shadowed by corresponding command-line flag (either unset environment variable or disable flag))",
          fields: [["environment-variable", key]],
          stacktrace: [
            "go.etcd.io/etcd/pkg/v3/flags.verifyEnv\n\tgo.etcd.io/etcd/pkg/v3@v3.6.14/flags/flag.go:86",
            "go.etcd.io/etcd/pkg/v3/flags.SetPflagsFromEnv\n\tgo.etcd.io/etcd/pkg/v3@v3.6.14/flags/flag.go:64",
            ...stack,
          ].join("\n"),
        }),
      );
      exitWith(1);
    }
    if (env.startsWith(`${prefix}_`)) {
      io.stderr(
        zapJsonLine({
          level: "warn",
          tsMs: io.nowMs(),
          caller: "flags/flag.go:94",
          msg: "unrecognized environment variable",
          fields: [["environment-variable", env]],
        }),
      );
    }
  }
}
