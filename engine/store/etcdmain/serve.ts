// serveMember: what etcd's embed.StartEtcd does once the flags are parsed — bind the peer and client URLs,
// start the member server, serve the client URLs (gRPC, the JSON gateway and /health, /metrics, /version,
// through ClientListener), the metrics URLs, and the lab's fault channel; and close it all again in etcd's
// order, also when the start fails part way.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { EtcdApi } from "../rpc/etcd-api.ts";
import { ClientListener } from "../rpc/client-listener.ts";
import { clientHttpHandler, metricsHttpHandler } from "../rpc/http.ts";
import { registerServices } from "../rpc/services.ts";
import { joinHostPort } from "../../common/host-port.ts";
import { GrpcServer, grpcOverheadBytes } from "../grpc/server.ts";
import type { Logger } from "../../go/zap.ts";
import { ControlChannel } from "../pkg/control-channel.ts";
import { bindAll, type BoundListener } from "../pkg/bound-listener.ts";
import { EtcdServer, etcdVersion } from "../server/etcd-server.ts";
import { formatId } from "../pkg/ids.ts";
import { tlsOptions } from "../server/tls.ts";
import type { MemberConfig } from "../config/config.ts";

/** RunningMember is a served member; close shuts it down (a graceful stop unless `reason` says otherwise). */
export interface RunningMember {
  server: EtcdServer;
  close(reason?: string): Promise<void>;
}

/**
 * serveMember binds the peer and client listeners, starts the member server on them, and serves the metrics
 * URLs, in etcd's order: a port that is taken fails the start before the data directory is touched.
 */
export async function serveMember(c: MemberConfig, log: Logger): Promise<RunningMember> {
  const clientTls = tlsOptions(c.tls);
  const bound: BoundListener[] = [];
  let server: EtcdServer;
  let peerListeners: BoundListener[];
  let clientListeners: BoundListener[];
  try {
    log.info("embed/etcd.go:138", "configuring peer listeners", {
      "listen-peer-urls": c.listenPeerUrls.map(stripSlash),
    });
    peerListeners = await bindAll(c.listenPeerUrls, tlsOptions(c.peerTls));
    bound.push(...peerListeners);
    log.info("embed/etcd.go:146", "configuring client listeners", {
      "listen-client-urls": c.listenClientUrls.map(stripSlash),
    });
    clientListeners = await ClientListener.bindAll(c.listenClientUrls, clientTls);
    bound.push(...clientListeners);
    logStarting(c, log);
    server = await EtcdServer.start({ config: c, logger: log, peerListeners });
  } catch (err) {
    // etcd's deferred e.Close() in StartEtcd.
    const fields = closeFields(c);
    log.info("embed/etcd.go:426", "closing etcd server", fields);
    await Promise.all(bound.map((l) => l.close()));
    log.info("embed/etcd.go:428", "closed etcd server", fields);
    throw err;
  }
  // etcd's servePeers, once the server has started.
  const peerAddresses = peerListeners.map((l) => joinHostPort(l.address().address, l.address().port));
  for (const address of peerAddresses) {
    log.info("embed/etcd.go:640", "serving peer traffic", { address });
    log.info("embed/etcd.go:611", "cmux::serve", { address });
  }
  const api = new EtcdApi(server);
  const fallback = clientHttpHandler(api);
  const grpc = new GrpcServer({ maxReceiveMessageBytes: c.maxRequestBytes + grpcOverheadBytes, fallback });
  registerServices(grpc, api);
  const clients = clientListeners.map((l) =>
    ClientListener.serve(l, {
      h2: grpc.h2,
      http1: fallback,
      // NB: etcd counts gRPC message bytes; these are the client connections' bytes (HTTP/2 framing included).
      onTraffic: (received, sent) => {
        server.metrics.clientGrpcReceivedBytes.inc(received);
        server.metrics.clientGrpcSentBytes.inc(sent);
      },
    }),
  );
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

  const metrics: BoundListener[] = [];
  const metricsHttp: HttpServer[] = [];
  let closing: Promise<void> | undefined;
  const close = (reason = "shutdown"): Promise<void> => {
    closing ??= (async () => {
      const fields = closeFields(c);
      log.info("embed/etcd.go:426", "closing etcd server", fields);
      // NB: etcd's Close() stops its client servers and listeners first and then the server (handing leadership
      // over); we stop the server first, so clients connected here are answered until leadership has moved.
      await server.stop(reason);
      // The server's transport closed the peer listeners as it stopped.
      for (const address of peerAddresses) {
        log.info("embed/etcd.go:621", "stopping serving peer traffic", { address });
        log.info("embed/etcd.go:626", "stopped serving peer traffic", { address });
      }
      await control?.close();
      await Promise.all(clients.map((l) => l.close()));
      await grpc.close();
      for (const h of metricsHttp) h.closeAllConnections();
      await Promise.all(metrics.map((l) => l.close()));
      log.info("embed/etcd.go:428", "closed etcd server", fields);
    })();
    return closing;
  };
  // etcd serves the metrics URLs last; one that cannot be bound stops the member again.
  try {
    metrics.push(...(await bindAll(c.listenMetricsUrls, clientTls)));
  } catch (err) {
    await close();
    throw err;
  }
  c.listenMetricsUrls.forEach((url, i) => {
    const h = createHttpServer(metricsHttpHandler(api));
    metrics[i]?.serve((s) => h.emit("connection", s));
    metricsHttp.push(h);
    log.info("embed/etcd.go:890", "serving metrics", { address: stripSlash(url) });
  });
  log.info("embed/etcd.go:292", "now serving peer/client/metrics", {
    "local-member-id": formatId(server.memberId),
    "initial-advertise-peer-urls": c.initialAdvertisePeerUrls,
    "listen-peer-urls": c.listenPeerUrls.map(stripSlash),
    "advertise-client-urls": c.advertiseClientUrls,
    "listen-client-urls": c.listenClientUrls.map(stripSlash),
    "listen-metrics-urls": c.listenMetricsUrls.map(stripSlash),
  });
  void server.ready.then(() => {
    for (const url of c.listenClientUrls) {
      log.info("embed/serve.go:138", "ready to serve client requests");
      const address = `${hostOf(url)}:${url.port}`;
      if (url.protocol === "https:") {
        log.info("embed/serve.go:283", "serving client traffic securely", { traffic: "grpc+http", address });
      } else {
        log.info("embed/serve.go:220", "serving client traffic insecurely; this is strongly discouraged!", {
          traffic: "grpc+http",
          address,
        });
      }
    }
  });

  return { server, close };
}

/** logStarting prints etcd's "starting an etcd server" line with the configuration. */
function logStarting(c: MemberConfig, log: Logger): void {
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

/** closeFields are the fields of etcd's "closing etcd server" and "closed etcd server" lines. */
function closeFields(c: MemberConfig): Record<string, unknown> {
  return {
    name: c.name,
    "data-dir": c.dataDir,
    "advertise-peer-urls": c.initialAdvertisePeerUrls,
    "advertise-client-urls": c.advertiseClientUrls,
  };
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

function stripSlash(u: URL): string {
  return u.toString().replace(/\/$/, "");
}
