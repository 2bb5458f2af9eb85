// serveMember: what etcd's embed.StartEtcd does once the flags are parsed — start the member server, serve
// the client URLs (gRPC, the JSON gateway and /health, /metrics, /version, through ClientListener), the
// metrics URLs, and the lab's fault channel; and close it all again in etcd's order.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { EtcdApi } from "../api/etcd-api.ts";
import { ClientListener } from "../api/client-listener.ts";
import { clientHttpHandler, metricsHttpHandler } from "../api/http.ts";
import { registerServices } from "../api/services.ts";
import { GrpcServer, grpcOverheadBytes } from "../grpc/server.ts";
import type { Logger } from "../log/zap.ts";
import { ControlChannel } from "../server/control-channel.ts";
import { EtcdServer } from "../server/etcd-server.ts";
import { formatId } from "../server/ids.ts";
import { tlsOptions } from "../server/tls.ts";
import type { MemberConfig } from "./config.ts";

/** RunningMember is a served member; close shuts it down (a graceful stop unless `reason` says otherwise). */
export interface RunningMember {
  server: EtcdServer;
  close(reason?: string): Promise<void>;
}

/** serveMember starts the member and its listeners. */
export async function serveMember(c: MemberConfig, log: Logger): Promise<RunningMember> {
  const server = await EtcdServer.start({ config: c, logger: log });
  const api = new EtcdApi(server);
  const clientTls = tlsOptions(c.tls);
  const fallback = clientHttpHandler(api);
  const grpc = new GrpcServer({ maxReceiveMessageBytes: c.maxRequestBytes + grpcOverheadBytes, fallback });
  registerServices(grpc, api);
  const clients: ClientListener[] = [];
  for (const url of c.listenClientUrls) {
    const secure = url.protocol === "https:";
    clients.push(
      await ClientListener.listen({
        host: hostOf(url),
        port: Number(url.port),
        tls: secure ? clientTls : undefined,
        h2: grpc.h2,
        http1: fallback,
        // NB: etcd counts gRPC message bytes; these are the client connections' bytes (HTTP/2 framing included).
        onTraffic: (received, sent) => {
          server.metrics.clientGrpcReceivedBytes.inc(received);
          server.metrics.clientGrpcSentBytes.inc(sent);
        },
      }),
    );
  }
  const metrics: HttpServer[] = [];
  for (const url of c.listenMetricsUrls) {
    const handler = metricsHttpHandler(api);
    // etcd: "For https, the client URL TLS info is used."
    const h =
      url.protocol === "https:" && clientTls ? createHttpsServer(clientTls, handler) : createHttpServer(handler);
    await new Promise<void>((resolve) => h.listen(Number(url.port), hostOf(url), resolve));
    metrics.push(h);
    log.info("embed/etcd.go:890", "serving metrics", { address: stripSlash(url) });
  }
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

  let closing: Promise<void> | undefined;
  const close = (reason = "shutdown"): Promise<void> => {
    closing ??= (async () => {
      const fields = {
        name: c.name,
        "data-dir": c.dataDir,
        "advertise-peer-urls": c.initialAdvertisePeerUrls,
        "advertise-client-urls": c.advertiseClientUrls,
      };
      log.info("embed/etcd.go:426", "closing etcd server", fields);
      // etcd stops the server (handing leadership over) before it closes the client listeners.
      await server.stop(reason);
      await control?.close();
      await Promise.all(clients.map((l) => l.close()));
      await grpc.close();
      await Promise.all(metrics.map((h) => new Promise((r) => h.close(() => r(undefined)))));
      log.info("embed/etcd.go:428", "closed etcd server", fields);
    })();
    return closing;
  };
  return { server, close };
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

function stripSlash(u: URL): string {
  return u.toString().replace(/\/$/, "");
}
