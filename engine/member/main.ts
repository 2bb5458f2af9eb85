// `etcd`: the member process. Flags and ETCD_* variables as etcd 3.6 takes them, zap-shaped JSON logs on
// stderr, the client port (gRPC + JSON gateway + /health, /metrics, /version), the metrics port, the peer port,
// the lab's fault channel, and graceful shutdown on SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { EtcdApi } from "../api/etcd-api.ts";
import { clientHttpHandler, metricsHttpHandler } from "../api/http.ts";
import { registerServices } from "../api/services.ts";
import { GrpcServer, grpcOverheadBytes } from "../grpc/server.ts";
import { ZapLogger, isLogLevel, type Logger } from "../log/zap.ts";
import { ControlChannel } from "../server/control-channel.ts";
import { EtcdServer, etcdVersion } from "../server/etcd-server.ts";
import { formatId } from "../server/ids.ts";
import { ConfigError, parseMemberConfig, type MemberConfig } from "./config.ts";
import { flagsHelp, usageLine } from "./flag-table.ts";

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
  try {
    return await serve(c, log);
  } catch (err) {
    log.error("etcdmain/etcd.go:204", "discovery failed", { error: (err as Error).message });
    return 1;
  }
}

async function serve(c: MemberConfig, log: Logger): Promise<number> {
  log.info("embed/etcd.go:140", "configuring peer listeners", { "listen-peer-urls": c.listenPeerUrls.map(stripSlash) });
  log.info("embed/etcd.go:148", "configuring client listeners", {
    "listen-client-urls": c.listenClientUrls.map(stripSlash),
  });
  log.info("embed/etcd.go:323", "starting an etcd server", {
    "etcd-version": etcdVersion,
    "git-sha": "etcd-lab",
    "go-version": `node${process.versions.node}`,
    "go-os": process.platform,
    "go-arch": process.arch,
    "max-cpu-set": 2,
    "max-cpu-available": 2,
    name: c.name,
    "data-dir": c.dataDir,
    "wal-dir": c.walDir,
    "wal-dir-dedicated": c.walDir,
    "member-dir": `${c.dataDir}/member`,
    "force-new-cluster": c.forceNewCluster,
    "heartbeat-interval": `${c.heartbeatMs}ms`,
    "election-timeout": `${c.electionMs / 1000}s`,
    "initial-election-tick-advance": c.initialElectionTickAdvance,
    "snapshot-count": c.snapshotCount,
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

  const server = await EtcdServer.start({ config: c, logger: log });
  const api = new EtcdApi(server);
  const grpcServers: GrpcServer[] = [];
  const tls = c.tls.certFile
    ? {
        cert: readFileSync(c.tls.certFile),
        key: readFileSync(c.tls.keyFile),
        ca: c.tls.trustedCaFile ? readFileSync(c.tls.trustedCaFile) : undefined,
        clientCertAuth: c.tls.clientCertAuth,
      }
    : undefined;
  for (const url of c.listenClientUrls) {
    const g = new GrpcServer({
      maxReceiveMessageBytes: c.maxRequestBytes + grpcOverheadBytes,
      tls: url.protocol === "https:" ? tls : undefined,
      fallback: clientHttpHandler(api),
    });
    registerServices(g, api);
    await g.listen(Number(url.port), url.hostname.replace(/^\[|\]$/g, ""));
    grpcServers.push(g);
    if (url.protocol === "http:") {
      log.warn("embed/serve.go:210", "serving client traffic insecurely; this is strongly discouraged!", {
        address: `${url.hostname}:${url.port}`,
      });
    } else {
      log.info("embed/serve.go:275", "serving client traffic securely", { address: `${url.hostname}:${url.port}` });
    }
  }
  const metricsServers: HttpServer[] = [];
  for (const url of c.listenMetricsUrls) {
    const h = createHttpServer(metricsHttpHandler(api));
    await new Promise<void>((resolve) => h.listen(Number(url.port), url.hostname.replace(/^\[|\]$/g, ""), resolve));
    metricsServers.push(h);
    log.info("embed/etcd.go:857", "serving metrics", { address: stripSlash(url) });
  }
  log.info("embed/etcd.go:279", "now serving peer/client/metrics", {
    "local-member-id": formatId(server.memberId),
    "initial-advertise-peer-urls": c.initialAdvertisePeerUrls,
    "listen-peer-urls": c.listenPeerUrls.map(stripSlash),
    "advertise-client-urls": c.advertiseClientUrls,
    "listen-client-urls": c.listenClientUrls.map(stripSlash),
    "listen-metrics-urls": c.listenMetricsUrls.map(stripSlash),
  });

  const controlPath = process.env["ETCD_LAB_CONTROL_SOCKET"];
  const control = controlPath
    ? await ControlChannel.listen(controlPath, {
        status: () => ({
          name: c.name,
          memberId: formatId(server.memberId),
          ...server.transport.faults(),
          fsyncDelayMs: server.fsyncDelayMs(),
        }),
        drop: (peers, direction) => server.transport.drop(peers, direction),
        delay: (peers, ms) => server.transport.delay(peers, ms),
        heal: () => server.transport.heal(),
        setFsyncDelay: (ms) => server.setFsyncDelayMs(ms),
      })
    : undefined;

  return new Promise<number>((resolve) => {
    let closing = false;
    const shutdown = async (reason: string, code: number): Promise<void> => {
      if (closing) return;
      closing = true;
      log.info("etcdserver/server.go:1530", "closing etcd server", {
        name: c.name,
        "data-dir": c.dataDir,
        "advertise-peer-urls": c.initialAdvertisePeerUrls,
        "advertise-client-urls": c.advertiseClientUrls,
        reason,
      });
      await control?.close();
      await Promise.all(grpcServers.map((g) => g.close()));
      await Promise.all(metricsServers.map((h) => new Promise((r) => h.close(() => r(undefined)))));
      await server.stop(reason === "signal" ? "shutdown" : reason);
      log.info("embed/etcd.go:411", "closed etcd server", { name: c.name, "data-dir": c.dataDir });
      resolve(code);
    };
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      process.on(sig, () => {
        log.info("osutil/interrupt_unix.go:64", "received signal; shutting down", { signal: sig });
        void shutdown("signal", 0);
      });
    }
    server.onStop((reason) => {
      log.warn("etcdserver/server.go:1180", reason, { "local-member-id": formatId(server.memberId) });
      void shutdown(reason, 1);
    });
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
