// `etcd`: the member process. Flags and ETCD_* variables as etcd 3.6 takes them (config.ts), zap-shaped JSON
// logs, then serveMember (serve.ts); graceful shutdown on SIGTERM/SIGINT (a leader hands over first).
import { openSync, readdirSync, writeSync } from "node:fs";
import { goFsError } from "../../go/go-errors.ts";
import { ZapLogger, isLogLevel } from "../../go/zap.ts";
import { etcdVersion } from "../server/etcd-server.ts";
import { formatId } from "../pkg/ids.ts";
import { ConfigError, parseMemberConfig, type MemberConfig } from "../config/config.ts";
import { flagsHelp, usageLine } from "../config/flag-table.ts";
import { serveMember } from "./serve.ts";

const argv = process.argv.slice(2);

function printVersion(): void {
  process.stdout.write(
    `etcd Version: ${etcdVersion}\n` +
      "Git SHA: etcd-lab (a TypeScript implementation that mirrors etcd 3.6; not the etcd binary)\n" +
      `Go Version: node${process.versions.node} (etcd-lab runs on Node.js)\n` +
      `Go OS/Arch: ${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}\n`,
  );
}

/**
 * makeLogger opens --log-outputs as etcd's zap logger does: "default" and "stderr" are stderr, "stdout" is
 * stdout, "/dev/null" discards everything, any other value is a file appended to; duplicates are merged.
 */
function makeLogger(level: string, outputs: readonly string[]): ZapLogger {
  if (outputs.length > 1 && outputs.includes("default")) {
    throw new ConfigError('multi logoutput for "default" is not supported yet', 1);
  }
  const paths = [...new Set(outputs.map((o) => (o === "default" ? "stderr" : o)))].sort();
  const sinks = paths.includes("/dev/null") ? [] : paths.map(openSink);
  return new ZapLogger({
    level: isLogLevel(level) ? level : "info",
    write: sinks.length === 1 ? (sinks[0] as (line: string) => void) : (l) => sinks.forEach((w) => w(l)),
    nowMs: () => performance.timeOrigin + performance.now(),
  });
}

function openSink(path: string): (line: string) => void {
  if (path === "stdout") return (l) => void process.stdout.write(l);
  if (path === "stderr") return (l) => void process.stderr.write(l);
  let fd: number;
  try {
    fd = openSync(path, "a", 0o666);
  } catch (err) {
    throw new ConfigError(`open sink "${path}": ${goFsError(err, "open", path)}`, 1);
  }
  return (l) => void writeSync(fd, l);
}

/** configFailed reports a bad command line as etcd does (usage text, or zap lines on stderr) and gives the exit code. */
function configFailed(err: unknown): number {
  if (!(err instanceof ConfigError)) throw err;
  if (err.usage) {
    process.stderr.write(`${err.message}\n${usageLine}\n`);
    return err.exitCode;
  }
  const log = makeLogger("info", ["stderr"]);
  log.info("etcdmain/etcd.go:64", "Running: ", { args: ["etcd", ...argv] });
  if (err.zapMsg !== "failed to verify flags") {
    log.error("flags/flag.go:96", err.zapMsg, {});
  } else {
    log.warn("etcdmain/etcd.go:74", "failed to verify flags", { error: err.message });
    if (err.message.startsWith("--advertise-client-urls is required")) {
      log.warn("etcdmain/etcd.go:77", "advertise client URLs are not set", { error: err.message });
    }
  }
  return err.exitCode;
}

async function main(): Promise<number> {
  const sub = argv[0];
  if (sub === "gateway" || sub === "grpc-proxy") {
    process.stderr.write(`etcd-lab: \`etcd ${sub}\` is not implemented (etcd-lab runs members only)\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseMemberConfig(argv, process.env);
  } catch (err) {
    return configFailed(err);
  }
  if (parsed.kind === "help") {
    process.stderr.write(`${usageLine}\n`);
    process.stdout.write(`${flagsHelp()}\n`);
    return 0;
  }
  if (parsed.kind === "version") {
    printVersion();
    return 0;
  }
  const c = parsed.config;
  let log: ZapLogger;
  try {
    log = makeLogger(c.logLevel, c.logOutputs);
  } catch (err) {
    return configFailed(err);
  }
  log.info("etcdmain/etcd.go:64", "Running: ", { args: ["etcd", ...argv] });
  for (const [key, value] of parsed.envUsed) {
    log.info("flags/flag.go:113", "recognized and used environment variable", {
      "variable-name": key,
      "variable-value": value,
    });
  }
  for (const [msg, fields] of parsed.warnings) log.warn("flags/flag.go:93", msg, fields);
  if (c.ignoredFlags.length > 0) {
    log.warn("etcdmain/config.go:1", "flags accepted for compatibility but without effect in etcd-lab", {
      flags: c.ignoredFlags,
    });
  }
  return run(c, log);
}

async function run(c: MemberConfig, log: ZapLogger): Promise<number> {
  const dirType = identifyDataDir(c.dataDir, log);
  if (dirType === undefined) return 1;
  if (dirType === "member") {
    log.info("etcdmain/etcd.go:107", "server has already been initialized", {
      "data-dir": c.dataDir,
      "dir-type": dirType,
    });
  } else {
    log.info("etcdmain/etcd.go:124", "Initialize and start etcd server", {
      "data-dir": c.dataDir,
      "dir-type": dirType,
    });
  }
  let member;
  try {
    member = await serveMember(c, log);
  } catch (err) {
    log.fatal("etcdmain/etcd.go:183", "discovery failed", {
      error: (err as Error).message,
      stacktrace: mainStack("etcdmain/etcd.go:183"),
    });
    return 1;
  }
  const m = member;
  return new Promise<number>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      process.on(sig, () => {
        log.info("osutil/interrupt_unix.go:64", "received signal; shutting down", { signal: sig });
        // As etcd's osutil.HandleInterrupts: once shut down, die of the same signal (a shell sees 128+n), except
        // as pid 1, where the kernel would not.
        void m.close().then(() => {
          if (process.pid === 1) return resolve(0);
          process.removeAllListeners(sig);
          process.kill(process.pid, sig);
        });
      });
    }
    m.server.onStop((reason) => {
      log.warn("etcdserver/server.go:1180", reason, { "local-member-id": formatId(m.server.memberId) });
      void m.close(reason).then(() => resolve(1));
    });
  });
}

/** mainStack is the stacktrace zap prints for a fatal line logged in startEtcdOrProxyV2 (etcd 3.6.14). */
function mainStack(at: string): string {
  const pkg = "go.etcd.io/etcd/server/v3";
  return [
    `${pkg}/etcdmain.startEtcdOrProxyV2\n\t${pkg}/${at}`,
    `${pkg}/etcdmain.Main\n\t${pkg}/etcdmain/main.go:40`,
    `main.main\n\t${pkg}/main.go:31`,
  ].join("\n");
}

/**
 * identifyDataDir says what the data dir holds, as etcd's identifyDataDirOrDie: "member" once initialized,
 * "empty" when missing or without a member directory (other names get a warning). Undefined: it could not be
 * listed (logged as etcd's fatal line).
 */
function identifyDataDir(dir: string, log: ZapLogger): "member" | "empty" | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "empty";
    const error = goFsError(err, code === "ENOTDIR" ? "readdirent" : "open", dir);
    log.fatal("etcdmain/etcd.go:227", "failed to list data directory", {
      dir,
      error,
      stacktrace: [
        `go.etcd.io/etcd/server/v3/etcdmain.identifyDataDirOrDie\n\tgo.etcd.io/etcd/server/v3/etcdmain/etcd.go:227`,
        mainStack("etcdmain/etcd.go:105"),
      ].join("\n"),
    });
    return undefined;
  }
  for (const name of names) {
    if (name === "member") continue;
    log.warn("etcdmain/etcd.go:238", "found invalid file under data directory", { filename: name, "data-dir": dir });
  }
  return names.includes("member") ? "member" : "empty";
}

main().then(
  (code) => {
    process.exitCode = code;
    setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`etcd: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
