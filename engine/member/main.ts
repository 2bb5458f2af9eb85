// `etcd`: the member process. Flags and ETCD_* variables as etcd 3.6 takes them (config.ts), zap-shaped JSON
// logs, then serveMember (serve.ts); graceful shutdown on SIGTERM/SIGINT (a leader hands over first).
import { ZapLogger, isLogLevel, type Logger } from "../log/zap.ts";
import { etcdVersion } from "../server/etcd-server.ts";
import { formatId } from "../server/ids.ts";
import { ConfigError, parseMemberConfig, type MemberConfig } from "./config.ts";
import { flagsHelp, usageLine } from "./flag-table.ts";
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

function makeLogger(level: string, outputs: string[]): Logger {
  const toStdout = outputs.includes("stdout");
  const write = toStdout ? (l: string) => void process.stdout.write(l) : (l: string) => void process.stderr.write(l);
  return new ZapLogger({
    level: isLogLevel(level) ? level : "info",
    write,
    nowMs: () => performance.timeOrigin + performance.now(),
  });
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
  const log = makeLogger(c.logLevel, c.logOutputs);
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

async function run(c: MemberConfig, log: Logger): Promise<number> {
  logStart(c, log);
  let member;
  try {
    member = await serveMember(c, log);
  } catch (err) {
    log.error("etcdmain/etcd.go:204", "discovery failed", { error: (err as Error).message });
    return 1;
  }
  const m = member;
  return new Promise<number>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      process.on(sig, () => {
        log.info("osutil/interrupt_unix.go:64", "received signal; shutting down", { signal: sig });
        void m.close().then(() => resolve(0));
      });
    }
    m.server.onStop((reason) => {
      log.warn("etcdserver/server.go:1180", reason, { "local-member-id": formatId(m.server.memberId) });
      void m.close(reason).then(() => resolve(1));
    });
  });
}

function logStart(c: MemberConfig, log: Logger): void {
  log.info("embed/etcd.go:138", "configuring peer listeners", { "listen-peer-urls": c.listenPeerUrls.map(stripSlash) });
  log.info("embed/etcd.go:146", "configuring client listeners", {
    "listen-client-urls": c.listenClientUrls.map(stripSlash),
  });
  log.info("embed/etcd.go:323", "starting an etcd server", {
    "etcd-version": etcdVersion,
    "git-sha": "etcd-lab",
    "go-version": `node${process.versions.node}`,
    "go-os": process.platform,
    "go-arch": process.arch === "x64" ? "amd64" : process.arch,
    name: c.name,
    "data-dir": c.dataDir,
    "wal-dir": c.walDir,
    "member-dir": `${c.dataDir}/member`,
    "force-new-cluster": c.forceNewCluster,
    "heartbeat-interval": `${c.heartbeatMs}ms`,
    "election-timeout": `${c.electionMs / 1000}s`,
    "initial-election-tick-advance": c.initialElectionTickAdvance,
    "snapshot-count": c.snapshotCount,
    "max-wals": c.maxWals,
    "max-snapshots": c.maxSnapshots,
    "snapshot-catchup-entries": c.snapshotCatchupEntries,
    "initial-advertise-peer-urls": c.initialAdvertisePeerUrls,
    "listen-peer-urls": c.listenPeerUrls.map(stripSlash),
    "advertise-client-urls": c.advertiseClientUrls,
    "listen-client-urls": c.listenClientUrls.map(stripSlash),
    "listen-metrics-urls": c.listenMetricsUrls.map(stripSlash),
    "initial-cluster": [...c.initialCluster].flatMap(([n, us]) => us.map((u) => `${n}=${u}`)).join(","),
    "initial-cluster-state": c.initialClusterState,
    "initial-cluster-token": c.initialClusterToken,
    "quota-backend-bytes": c.quotaBackendBytes,
    "max-request-bytes": c.maxRequestBytes,
    "max-concurrent-streams": 4294967295,
    "pre-vote": c.preVote,
    "auto-compaction-mode": c.autoCompactionMode,
    "auto-compaction-retention": c.autoCompactionRetention,
  });
}

function stripSlash(u: URL): string {
  return u.toString().replace(/\/$/, "");
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
