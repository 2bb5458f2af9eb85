// Our gRPC client against our gRPC server: every call shape, status and metadata path, deadlines,
// cancellation, size limits, backpressure, reconnects, TLS and the non-gRPC fallback on the same port.
import http from "node:http";
import https from "node:https";
import http2 from "node:http2";
import { afterEach, describe, expect, it } from "vitest";
import {
  KVService,
  LeaseService,
  MaintenanceService,
  PutRequest,
  RangeRequest,
  RangeResponse,
  SnapshotResponse,
} from "../proto/gen/etcdserverpb.ts";
import { GrpcChannel } from "./channel.ts";
import { duplexCall, serverStreamCall, unaryCall } from "./client-call.ts";
import { GrpcServer, type ServerCall } from "./server.ts";
import { GrpcError, GrpcStatus } from "./status.ts";
import { makeTestCerts, opensslAvailable } from "./test-fixtures/certs.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(server: GrpcServer): Promise<string> {
  const addr = await server.listen(0);
  cleanups.push(() => server.close());
  return `127.0.0.1:${addr.port}`;
}

function channel(target: string, opts: ConstructorParameters<typeof GrpcChannel>[1] = {}): GrpcChannel {
  const ch = new GrpcChannel(target, opts);
  cleanups.push(() => ch.close());
  return ch;
}

const rangeResponse = (value: string, revision = 1): RangeResponse =>
  RangeResponse.create({
    header: { clusterId: 1n, memberId: 0xfedcba9876543210n, revision, raftTerm: 2 },
    kvs: [
      {
        key: enc.encode("k"),
        value: enc.encode(value),
        createRevision: 1,
        modRevision: revision,
        version: 1,
        lease: 0n,
      },
    ],
    count: 1,
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("unary calls", () => {
  it("round-trip a request with metadata in, headers and trailers out", async () => {
    const server = new GrpcServer();
    let seen: ServerCall | undefined;
    server.addService(KVService, {
      Range: (req, call) => {
        seen = call;
        call.sendMetadata({ "x-served-by": "m1" });
        call.setTrailers({ "x-trailer": "t" });
        return rangeResponse(dec.decode(req.key) + "!");
      },
    });
    const ch = channel(await start(server));
    const res = await unaryCall(ch, KVService.Range, RangeRequest.create({ key: enc.encode("abc") }), {
      metadata: { token: "tok", hasleader: "true" },
    });
    expect(dec.decode(res.kvs[0]!.value)).toBe("abc!");
    expect(res.header?.memberId).toBe(0xfedcba9876543210n);
    expect(seen?.metadata).toMatchObject({ token: "tok", hasleader: "true" });
    expect(seen?.peer).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it("carry status codes and messages, percent-encoded on the wire", async () => {
    const server = new GrpcServer();
    server.addService(KVService, {
      Range: (req) => {
        const k = dec.decode(req.key);
        if (k === "noleader") throw new GrpcError(GrpcStatus.UNAVAILABLE, "etcdserver: no leader");
        if (k === "odd") throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, "100% ünïcode\nline");
        throw new Error("plain failure");
      },
    });
    const ch = channel(await start(server));
    const call = (k: string) => unaryCall(ch, KVService.Range, RangeRequest.create({ key: enc.encode(k) }));
    await expect(call("noleader")).rejects.toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
      message: "etcdserver: no leader",
    });
    await expect(call("odd")).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      message: "100% ünïcode\nline",
    });
    await expect(call("x")).rejects.toMatchObject({ code: GrpcStatus.UNKNOWN, message: "plain failure" });
    const err = (await call("noleader").catch((e: unknown) => e)) as GrpcError;
    expect(err.goString()).toBe("rpc error: code = Unavailable desc = etcdserver: no leader");
  });

  it("answer unknown services and methods with grpc-go's UNIMPLEMENTED texts", async () => {
    const server = new GrpcServer();
    server.addService(KVService, {});
    const ch = channel(await start(server));
    await expect(unaryCall(ch, KVService.Put, PutRequest.create())).rejects.toMatchObject({
      code: GrpcStatus.UNIMPLEMENTED,
      message: "method Put not implemented",
    });
    const bogus = { ...KVService.Range, path: "/etcdserverpb.KV/Nope" };
    await expect(unaryCall(ch, bogus, RangeRequest.create())).rejects.toMatchObject({
      message: "unknown method Nope for service etcdserverpb.KV",
    });
    await expect(unaryCall(ch, LeaseService.LeaseGrant, { TTL: 1, ID: 0n })).rejects.toMatchObject({
      code: GrpcStatus.UNIMPLEMENTED,
      message: "unknown service etcdserverpb.Lease",
    });
  });

  it("enforce deadlines on both sides and abort the server handler", async () => {
    const server = new GrpcServer();
    let aborted: unknown;
    server.addService(KVService, {
      Range: async (_req, call) => {
        expect(call.deadline).toBeGreaterThan(Date.now());
        await new Promise<void>((resolve) => call.signal.addEventListener("abort", () => resolve()));
        aborted = call.signal.reason;
        return rangeResponse("late");
      },
    });
    const ch = channel(await start(server));
    const t0 = Date.now();
    await expect(
      unaryCall(ch, KVService.Range, RangeRequest.create(), { deadline: Date.now() + 150 }),
    ).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED, message: "context deadline exceeded" });
    // The handler never answers: only the deadline ends the call.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await sleep(50);
    expect(aborted).toBeInstanceOf(GrpcError);
  });

  it("propagate client cancellation to the server", async () => {
    const server = new GrpcServer();
    let reason: GrpcError | undefined;
    server.addService(KVService, {
      Range: (_req, call) =>
        new Promise((resolve) =>
          call.signal.addEventListener("abort", () => {
            reason = call.signal.reason as GrpcError;
            resolve(rangeResponse("x"));
          }),
        ),
    });
    const ch = channel(await start(server));
    const ac = new AbortController();
    const p = unaryCall(ch, KVService.Range, RangeRequest.create(), { signal: ac.signal });
    await sleep(50);
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: GrpcStatus.CANCELLED, message: "context canceled" });
    await sleep(50);
    expect(reason?.code).toBe(GrpcStatus.CANCELLED);
  });

  it("bound message sizes with grpc-go's texts on each side", async () => {
    const server = new GrpcServer({ maxReceiveMessageBytes: 1024 });
    server.addService(KVService, { Put: () => ({ header: undefined, prevKv: undefined }) });
    const ch = channel(await start(server));
    const put = (n: number, max?: number) =>
      unaryCall(ch, KVService.Put, PutRequest.create({ key: enc.encode("k"), value: new Uint8Array(n) }), {
        maxSendMessageBytes: max,
      });
    await expect(put(2000)).rejects.toMatchObject({
      code: GrpcStatus.RESOURCE_EXHAUSTED,
      message: "grpc: received message larger than max (2006 vs. 1024)",
    });
    await expect(put(2_500_000)).rejects.toMatchObject({
      code: GrpcStatus.RESOURCE_EXHAUSTED,
      message: "trying to send message larger than max (2500008 vs. 2097152)",
    });
    await expect(put(100)).resolves.toBeDefined();
  });
});

describe("streaming calls", () => {
  it("server streaming applies backpressure instead of buffering everything", async () => {
    const server = new GrpcServer();
    let written = 0;
    const total = 1000;
    server.addService(MaintenanceService, {
      Snapshot: async (_req, call) => {
        for (let i = 0; i < total; i++) {
          await call.write(SnapshotResponse.create({ remainingBytes: total - i - 1, blob: new Uint8Array(16 * 1024) }));
          written++;
        }
      },
    });
    const ch = channel(await start(server));
    const stream = serverStreamCall(ch, MaintenanceService.Snapshot, {});
    const first = await stream.read();
    expect(first?.blob.length).toBe(16 * 1024);
    await sleep(300);
    // 1000 × 16 KiB = 16 MiB; flow control windows and our bounded queues must have stopped the writer well before.
    expect(written).toBeLessThan(total / 2);
    let n = 1;
    for await (const m of stream) {
      n++;
      if (m.remainingBytes === 0) expect(n).toBe(total);
    }
    expect(n).toBe(total);
    expect(written).toBe(total);
  });

  it("bidi streams echo in order and end cleanly", async () => {
    const server = new GrpcServer();
    server.addService(LeaseService, {
      LeaseKeepAlive: async (requests, call) => {
        for await (const req of requests) await call.write({ header: undefined, ID: req.ID, TTL: 60 });
      },
    });
    const ch = channel(await start(server));
    const ka = duplexCall(ch, LeaseService.LeaseKeepAlive);
    for (let i = 1n; i <= 5n; i++) {
      await ka.write({ ID: i });
      expect((await ka.read())?.ID).toBe(i);
    }
    await ka.end();
    expect(await ka.read()).toBeUndefined();
  });

  it("client streaming and a server error mid-stream", async () => {
    const collect = {
      path: "/test.Test/Collect",
      requestStream: true,
      responseStream: false,
      requestType: PutRequest,
      responseType: RangeResponse,
    } as const;
    const server = new GrpcServer();
    server.addService(
      { Collect: collect },
      {
        Collect: async (requests) => {
          let all = "";
          for await (const r of requests) {
            if (dec.decode(r.key) === "boom") throw new GrpcError(GrpcStatus.ABORTED, "boom");
            all += dec.decode(r.value);
          }
          return rangeResponse(all);
        },
      },
    );
    const ch = channel(await start(server));
    const c = duplexCall(ch, collect);
    for (const v of ["a", "b", "c"]) await c.write(PutRequest.create({ key: enc.encode("k"), value: enc.encode(v) }));
    await c.end();
    expect(dec.decode((await c.read())!.kvs[0]!.value)).toBe("abc");
    const d = duplexCall(ch, collect);
    await d.write(PutRequest.create({ key: enc.encode("boom") }));
    await expect(d.read()).rejects.toMatchObject({ code: GrpcStatus.ABORTED, message: "boom" });
  });

  it("a watch-style stream sees the server go away as UNAVAILABLE", async () => {
    const server = new GrpcServer();
    server.addService(LeaseService, {
      LeaseKeepAlive: async (requests) => {
        for await (const _ of requests) {
          /* never answers */
        }
      },
    });
    const ch = channel(await start(server));
    const ka = duplexCall(ch, LeaseService.LeaseKeepAlive);
    await ka.write({ ID: 1n });
    await sleep(50);
    for (const s of server["sessions"]) s.destroy();
    await expect(ka.read()).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
  });
});

describe("connections", () => {
  it("fail fast with UNAVAILABLE, or wait for ready until the deadline", async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const ch = channel(`127.0.0.1:${port}`);
    const err = (await unaryCall(ch, KVService.Range, RangeRequest.create()).catch((e) => e)) as GrpcError;
    expect(err.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(err.message).toBe(
      `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:${port}: connect: connection refused"`,
    );
    const t0 = Date.now();
    const late = (await unaryCall(ch, KVService.Range, RangeRequest.create(), {
      waitForReady: true,
      deadline: Date.now() + 300,
    }).catch((e) => e)) as GrpcError;
    expect(late.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    expect(late.message).toMatch(/^latest balancer error: connection error: /);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("reconnect after the server restarts on the same port", async () => {
    const mk = () => {
      const s = new GrpcServer();
      s.addService(KVService, { Range: () => rangeResponse("up") });
      return s;
    };
    const first = mk();
    const { port } = await first.listen(0);
    const ch = channel(`127.0.0.1:${port}`);
    expect(dec.decode((await unaryCall(ch, KVService.Range, RangeRequest.create())).kvs[0]!.value)).toBe("up");
    await first.close();
    // The client learns that the connection is gone asynchronously; a call racing that would fail with
    // UNAVAILABLE (and clientv3 retries those for read-only RPCs).
    await sleep(100);
    expect(ch.state).not.toBe("ready");
    const second = mk();
    await second.listen(port);
    cleanups.push(() => second.close());
    const res = await unaryCall(ch, KVService.Range, RangeRequest.create(), {
      waitForReady: true,
      deadline: Date.now() + 5000,
    });
    expect(res.count).toBe(1);
  });

  it("serve HTTP/1.1 and non-gRPC HTTP/2 through the fallback on the same port", async () => {
    const server = new GrpcServer({
      fallback: (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ path: req.url, version: req.httpVersion }));
      },
    });
    server.addService(KVService, { Range: () => rangeResponse("g") });
    const target = await start(server);
    const body1 = await new Promise<string>((resolve, reject) => {
      http
        .get(`http://${target}/health`, (res) => {
          let s = "";
          res.on("data", (c: Buffer) => (s += c.toString()));
          res.on("end", () => resolve(s));
        })
        .on("error", reject);
    });
    expect(JSON.parse(body1)).toEqual({ path: "/health", version: "1.1" });
    const session = http2.connect(`http://${target}`);
    cleanups.push(() => void session.close());
    const body2 = await new Promise<string>((resolve) => {
      const req = session.request({ ":method": "POST", ":path": "/v3/kv/range", "content-type": "application/json" });
      let s = "";
      req.on("data", (c: Buffer) => (s += c.toString()));
      req.on("end", () => resolve(s));
      req.end("{}");
    });
    expect(JSON.parse(body2)).toEqual({ path: "/v3/kv/range", version: "2.0" });
    // And gRPC still works on the same port.
    const ch = channel(target);
    expect((await unaryCall(ch, KVService.Range, RangeRequest.create())).count).toBe(1);
  });

  it("speak TLS with client certificates, and refuse an untrusted server unless told to skip verification", async () => {
    if (!opensslAvailable()) {
      if (process.env["ETCD_LAB_CI"] === "1") throw new Error("openssl is required for the TLS test");
      console.warn("SKIPPED: TLS test needs the openssl CLI");
      return;
    }
    const certs = makeTestCerts();
    const server = new GrpcServer({
      tls: { cert: certs.serverCert, key: certs.serverKey, ca: certs.ca, clientCertAuth: true },
    });
    server.addService(KVService, { Range: (_r, call) => rangeResponse(call.peer) });
    const target = await start(server);
    const ok = channel(target, { tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey } });
    expect((await unaryCall(ok, KVService.Range, RangeRequest.create())).count).toBe(1);
    const untrusted = channel(target, { tls: { cert: certs.clientCert, key: certs.clientKey } });
    await expect(unaryCall(untrusted, KVService.Range, RangeRequest.create())).rejects.toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
    });
    const skip = channel(target, { tls: { insecureSkipVerify: true, cert: certs.clientCert, key: certs.clientKey } });
    expect((await unaryCall(skip, KVService.Range, RangeRequest.create())).count).toBe(1);
    const noClientCert = channel(target, { tls: { ca: certs.ca } });
    await expect(unaryCall(noClientCert, KVService.Range, RangeRequest.create())).rejects.toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
    });
  });

  it("over TLS, HTTP/1.1 clients reach the fallback through ALPN", async () => {
    if (!opensslAvailable()) {
      if (process.env["ETCD_LAB_CI"] === "1") throw new Error("openssl is required for the TLS test");
      console.warn("SKIPPED: TLS test needs the openssl CLI");
      return;
    }
    const certs = makeTestCerts();
    const server = new GrpcServer({
      tls: { cert: certs.serverCert, key: certs.serverKey },
      fallback: (req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`health over HTTP/${req.httpVersion}`);
      },
    });
    server.addService(KVService, { Range: () => rangeResponse("tls") });
    const target = await start(server);
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`https://${target}/health`, { ca: certs.ca }, (res) => {
          let s = "";
          res.on("data", (c: Buffer) => (s += c.toString()));
          res.on("end", () => resolve(s));
        })
        .on("error", reject);
    });
    expect(body).toBe("health over HTTP/1.1");
    const ch = channel(target, { tls: { ca: certs.ca } });
    expect((await unaryCall(ch, KVService.Range, RangeRequest.create())).count).toBe(1);
  });
});
