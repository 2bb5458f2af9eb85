// EtcdClient against our gRPC server with scripted handlers: clientv3's balancing, waiting, retries, errors,
// the retry-warning hook, watch resumption and lease keep-alive.
import { afterEach, describe, expect, it } from "vitest";
import { GrpcServer } from "../grpc/server.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { AuthService, KVService, LeaseService, RangeResponse, WatchService } from "../proto/gen/etcdserverpb.ts";
import { addMemoryEtcd } from "../grpc/test-fixtures/memory-etcd.ts";
import { EtcdClient, EtcdClientError, formatRetryWarning, prefixEnd, type RetryFailure } from "./index.ts";
import { dialError } from "./endpoint-pool.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serve(
  setup: (s: GrpcServer, endpoint: string) => void,
  port = 0,
): Promise<{ server: GrpcServer; endpoint: string }> {
  const server = new GrpcServer();
  const addr = await server.listen(port);
  const endpoint = `127.0.0.1:${addr.port}`;
  setup(server, endpoint);
  cleanups.push(() => server.close());
  return { server, endpoint };
}

async function deadPort(): Promise<number> {
  const s = new GrpcServer();
  const { port } = await s.listen(0);
  await s.close();
  return port;
}

function client(endpoints: string[], extra: Partial<ConstructorParameters<typeof EtcdClient>[0]> = {}): EtcdClient {
  const c = new EtcdClient({ endpoints, dialTimeoutMs: 1000, commandTimeoutMs: 3000, ...extra });
  cleanups.push(() => c.close());
  return c;
}

describe("EtcdClient KV over the in-memory fixture", () => {
  it("put, get, prefix, delete", async () => {
    const { endpoint } = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`));
    const c = client([endpoint]);
    await c.set("/app/a", "1");
    await c.set("/app/b", "2");
    await c.set("/other", "x");
    const one = await c.get("/app/a");
    expect(dec.decode(one.kvs[0]!.value)).toBe("1");
    const all = await c.get("/app/", { prefix: true });
    expect(all.kvs.map((kv) => dec.decode(kv.key))).toEqual(["/app/a", "/app/b"]);
    const del = await c.deleteRange({ key: enc.encode("/app/"), rangeEnd: prefixEnd("/app/"), prevKv: true });
    expect(del.deleted).toBe(2);
    expect((await c.get("/app/", { prefix: true })).count).toBe(0);
  });

  it("errors: etcd server texts, gRPC errors and context errors print as clientv3's", async () => {
    const { endpoint } = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`));
    const failures: RetryFailure[] = [];
    const c = client([endpoint], { onRetryFailure: (f) => failures.push(f) });
    const e1 = (await c.get("").catch((e: unknown) => e)) as EtcdClientError;
    expect(e1).toBeInstanceOf(EtcdClientError);
    expect([e1.kind, e1.code, e1.message]).toEqual([
      "server",
      GrpcStatus.INVALID_ARGUMENT,
      "etcdserver: key is not provided",
    ]);
    expect(failures[0]!.peer).toMatch(
      /^Peer\{Addr: '127\.0\.0\.1:\d+', LocalAddr: '127\.0\.0\.1:\d+', AuthInfo: <nil>\}$/,
    );
    expect(failures.map((f) => [f.method, f.attempt, f.error.goString()])).toEqual([
      ["/etcdserverpb.KV/Range", 0, "rpc error: code = InvalidArgument desc = etcdserver: key is not provided"],
    ]);
    const e2 = (await c.compact(1).catch((e: unknown) => e)) as EtcdClientError;
    expect(e2.message).toBe("rpc error: code = Unimplemented desc = method Compact not implemented");
    const e3 = (await c.set("big", new Uint8Array(2_200_000)).catch((e: unknown) => e)) as EtcdClientError;
    expect(e3.message).toBe(
      "rpc error: code = ResourceExhausted desc = trying to send message larger than max (2200010 vs. 2097152)",
    );
  });

  it("an unreachable endpoint: the call waits until its deadline, then `context deadline exceeded`", async () => {
    const port = await deadPort();
    const failures: RetryFailure[] = [];
    // The client's own command timeout is a minute: ending well before it, the call kept its own 700 ms.
    const c = client([`127.0.0.1:${port}`], { onRetryFailure: (f) => failures.push(f), commandTimeoutMs: 60_000 });
    const t0 = Date.now();
    const err = (await c.get("foo", { timeoutMs: 700 }).catch((e: unknown) => e)) as EtcdClientError;
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(690);
    expect(took).toBeLessThan(30_000);
    expect([err.kind, err.message]).toEqual(["context", "context deadline exceeded"]);
    expect(failures).toHaveLength(1);
    const line = formatRetryWarning(failures[0]!);
    expect(line).toMatch(
      new RegExp(
        `^\\{"level":"warn","ts":"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}(Z|[+-]\\d{4})","caller":"v3@v3.6.14/retry_interceptor.go:68",` +
          `"msg":"retrying of unary invoker failed","target":"etcd-endpoints://0xc000[0-9a-f]{6}/127.0.0.1:${port}",` +
          `"peer":"Peer\\{Addr: <nil>, LocalAddr: <nil>, AuthInfo: <nil>\\}",` +
          `"method":"/etcdserverpb.KV/Range","attempt":0,"error":"rpc error: code = DeadlineExceeded desc = latest balancer error: ` +
          `connection error: desc = \\\\"transport: Error while dialing: dial tcp 127.0.0.1:${port}: connect: connection refused\\\\""\\}$`,
      ),
    );
  });

  it("fails over: with one endpoint dead, calls run on the others", async () => {
    const dead = await deadPort();
    const { endpoint } = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`));
    const c = client([`127.0.0.1:${dead}`, endpoint]);
    for (let i = 0; i < 5; i++) await c.set(`k${i}`, "v");
    expect((await c.get("k", { prefix: true })).count).toBe(5);
  });
});

describe("EtcdClient retries (clientv3 retry_interceptor)", () => {
  it("retries read-only RPCs on UNAVAILABLE and reports each failed attempt; never retries writes", async () => {
    let ranges = 0;
    let puts = 0;
    const { endpoint } = await serve((s) =>
      s.addService(KVService, {
        Range: () => {
          if (++ranges <= 3) throw new GrpcError(GrpcStatus.UNAVAILABLE, "etcdserver: no leader");
          return RangeResponse.create({ count: 7 });
        },
        Put: () => {
          puts++;
          throw new GrpcError(GrpcStatus.UNAVAILABLE, "etcdserver: no leader");
        },
      }),
    );
    const failures: RetryFailure[] = [];
    const c = client([endpoint], { onRetryFailure: (f) => failures.push(f) });
    expect((await c.get("x")).count).toBe(7);
    expect(failures.map((f) => f.attempt)).toEqual([0, 1, 2]);
    expect(failures[0]!.error.message).toBe("etcdserver: no leader");
    const err = (await c.set("x", "y").catch((e: unknown) => e)) as EtcdClientError;
    expect([err.kind, err.message, puts]).toEqual(["server", "etcdserver: no leader", 1]);
  });

  it("gives up on UNAVAILABLE at the caller's deadline", async () => {
    const { endpoint } = await serve((s) =>
      s.addService(KVService, {
        Range: () => {
          throw new GrpcError(GrpcStatus.UNAVAILABLE, "etcdserver: request timed out");
        },
      }),
    );
    const c = client([endpoint], { maxUnaryRetries: 1_000_000, commandTimeoutMs: 60_000 });
    const t0 = Date.now();
    const err = (await c.get("x", { timeoutMs: 400 }).catch((e: unknown) => e)) as EtcdClientError;
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(["etcdserver: request timed out", "context deadline exceeded"]).toContain(err.message);
  });

  it("re-authenticates when the token expires, and sends the token as metadata", async () => {
    let issued = 0;
    const seenTokens: (string | undefined)[] = [];
    const { endpoint } = await serve((s) => {
      s.addService(KVService, {
        Range: (_r, call) => {
          seenTokens.push(call.metadata["token"]);
          if (call.metadata["token"] !== `tok${issued}`)
            throw new GrpcError(GrpcStatus.UNAUTHENTICATED, "etcdserver: invalid auth token");
          return RangeResponse.create({ count: 1 });
        },
      });
      s.addService(
        { Authenticate: AuthService.Authenticate },
        {
          Authenticate: (req) => {
            if (req.name !== "root" || req.password !== "pw") {
              throw new GrpcError(
                GrpcStatus.INVALID_ARGUMENT,
                "etcdserver: authentication failed, invalid user ID or password",
              );
            }
            return { header: undefined, token: `tok${++issued}` };
          },
        },
      );
    });
    const c = client([endpoint], { user: "root", password: "pw" });
    expect((await c.get("x")).count).toBe(1);
    issued++; // the server forgets the token
    expect((await c.get("x")).count).toBe(1);
    expect(seenTokens).toEqual(["tok1", "tok1", "tok3"]);
    const bad = client([endpoint], { user: "root", password: "nope" });
    await expect(bad.get("x")).rejects.toMatchObject({
      message: "etcdserver: authentication failed, invalid user ID or password",
    });
  });
});

describe("EtcdClient watch and lease keep-alive", () => {
  it("watch delivers events, with hasleader metadata, and resumes after the server restarts", async () => {
    const first = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`));
    const port = Number(first.endpoint.split(":")[1]);
    const c = client([first.endpoint]);
    const w = c.watch("wk", { prevKv: true });
    const it = w[Symbol.asyncIterator]();
    const seen = it.next();
    await sleep(200);
    await c.set("wk", "v1");
    const r1 = (await seen).value!;
    expect(dec.decode(r1.events[0]!.kv!.value)).toBe("v1");
    // Restart the server on the same port; the watch re-creates itself there.
    await first.server.close();
    const second = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`), port);
    const next = it.next();
    // Puts until the re-created watch sees one.
    let got;
    for (let i = 0; i < 50 && got === undefined; i++) {
      await c.set("wk", `again${i}`, { timeoutMs: 2000 }).catch(() => {});
      got = await Promise.race([next, sleep(100).then(() => undefined)]);
    }
    expect(got?.value?.events[0]?.kv?.key).toEqual(enc.encode("wk"));
    await w.cancel();
    expect(await w.next()).toBeUndefined();
    void second;
  });

  it("requestProgress gets a progress notification on every open watch", async () => {
    const { endpoint } = await serve((s, ep) => addMemoryEtcd(s, `http://${ep}`));
    const c = client([endpoint]);
    await c.set("p", "1");
    const w1 = c.watch("p");
    const w2 = c.watch("q");
    await sleep(200);
    await c.requestProgress();
    for (const w of [w1, w2]) {
      const r = (await w.next())!;
      expect(r.events).toEqual([]);
      expect(r.header?.revision).toBe(2);
    }
    c.close();
    expect(await w1.next()).toBeUndefined();
  });

  it("watch sends hasleader and ends with the server's canceled response", async () => {
    let md: Record<string, string> = {};
    const { endpoint } = await serve((s) =>
      s.addService(WatchService, {
        Watch: async (requests, call) => {
          md = call.metadata;
          for await (const req of requests) {
            if (req.createRequest) {
              await call.write({
                header: undefined,
                watchId: 3,
                created: true,
                canceled: false,
                compactRevision: 0,
                cancelReason: "",
                fragment: false,
                events: [],
              });
              await call.write({
                header: undefined,
                watchId: 3,
                created: false,
                canceled: true,
                compactRevision: 125,
                cancelReason: "etcdserver: mvcc: required revision has been compacted",
                fragment: false,
                events: [],
              });
            }
          }
        },
      }),
    );
    const c = client([endpoint]);
    const w = c.watch("cmp", { startRevision: 123 });
    const r = await w.next();
    expect(r).toMatchObject({
      canceled: true,
      compactRevision: 125,
      cancelReason: "etcdserver: mvcc: required revision has been compacted",
    });
    expect(await w.next()).toBeUndefined();
    expect(md["hasleader"]).toBe("true");
    expect(md["client-api-version"]).toBe("3.6");
  });

  it("keep-alive renews every TTL/3 and ends when the lease is gone; keepAliveOnce reports a missing lease", async () => {
    const times: number[] = [];
    const { endpoint } = await serve((s) =>
      s.addService(LeaseService, {
        LeaseKeepAlive: async (requests, call) => {
          for await (const req of requests) {
            times.push(Date.now());
            const alive = req.ID === 7n && times.length < 4;
            await call.write({ header: undefined, ID: req.ID, TTL: alive ? 1 : 0 });
          }
        },
      }),
    );
    const c = client([endpoint]);
    const ka = c.leaseKeepAlive(7n);
    const ttls: number[] = [];
    for await (const r of ka) ttls.push(r.TTL);
    expect(ttls).toEqual([1, 1, 1]);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(300);
    await expect(c.leaseKeepAliveOnce(8n)).rejects.toMatchObject({
      message: "etcdserver: requested lease not found",
      kind: "server",
    });
  });
});

describe("helpers", () => {
  it("prefixEnd follows clientv3", () => {
    expect(prefixEnd("a")).toEqual(enc.encode("b"));
    expect(prefixEnd(new Uint8Array([0x61, 0xff]))).toEqual(new Uint8Array([0x62]));
    expect(prefixEnd(new Uint8Array([0xff]))).toEqual(new Uint8Array([0]));
  });

  it("rejects an empty endpoint list like clientv3", () => {
    expect(() => new EtcdClient({ endpoints: [] })).toThrow("etcdclient: no available endpoints");
  });
});

describe("clientv3 behaviours etcdctl relies on", () => {
  it("an address Go cannot dial fails with its dial error, and the warn line can name its logger", async () => {
    expect(dialError("foo")?.message).toBe(
      'connection error: desc = "transport: Error while dialing: dial tcp: address foo: missing port in address"',
    );
    expect(dialError("http://127.0.0.1:99999")?.message).toContain("address 127.0.0.1:99999: invalid port");
    expect(dialError("127.0.0.1:2379")).toBeUndefined();
    expect(dialError("unix:/tmp/etcd.sock")).toBeUndefined();
    const failures: RetryFailure[] = [];
    const c = client(["foo"], { onRetryFailure: (f) => failures.push(f) });
    await expect(c.get("k", { timeoutMs: 300 })).rejects.toMatchObject({ message: "context deadline exceeded" });
    const line = formatRetryWarning(failures[0]!, undefined, "etcd-client");
    expect(line).toMatch(/^\{"level":"warn","ts":"[^"]+","logger":"etcd-client","caller":"v3@v3.6.14\//);
    expect(line).toContain(
      'latest balancer error: connection error: desc = \\"transport: Error while dialing: dial tcp: address foo: missing port in address\\""}',
    );
  });

  it("a signal aborted by the caller's deadline timer is the deadline, with the balancer's reason; a cancel is a cancel", async () => {
    const port = await deadPort();
    const failures: RetryFailure[] = [];
    const c = client([`127.0.0.1:${port}`], { onRetryFailure: (f) => failures.push(f), commandTimeoutMs: undefined });
    const timer = new AbortController();
    setTimeout(() => timer.abort(new Error("context deadline exceeded")), 300);
    await expect(c.get("k", { signal: timer.signal })).rejects.toMatchObject({ message: "context deadline exceeded" });
    expect(failures[0]!.error.goString()).toMatch(/^rpc error: code = DeadlineExceeded desc = latest balancer error: /);
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 300);
    await expect(c.get("k", { signal: cancel.signal })).rejects.toMatchObject({ message: "context canceled" });
    const timeout = AbortSignal.timeout(300);
    await expect(c.get("k", { signal: timeout })).rejects.toMatchObject({ message: "context deadline exceeded" });
  });

  it("login authenticates at once: a wrong password fails it, a server without auth is fine", async () => {
    let authEnabled = true;
    const { endpoint } = await serve((s) =>
      s.addService(
        { Authenticate: AuthService.Authenticate },
        {
          Authenticate: (req) => {
            if (!authEnabled)
              throw new GrpcError(GrpcStatus.FAILED_PRECONDITION, "etcdserver: authentication is not enabled");
            if (req.password !== "pw")
              throw new GrpcError(
                GrpcStatus.INVALID_ARGUMENT,
                "etcdserver: authentication failed, invalid user ID or password",
              );
            return { header: undefined, token: "t" };
          },
        },
      ),
    );
    await expect(client([endpoint], { user: "root", password: "nope" }).login()).rejects.toMatchObject({
      message: "etcdserver: authentication failed, invalid user ID or password",
    });
    await client([endpoint], { user: "root", password: "pw" }).login();
    authEnabled = false;
    await client([endpoint], { user: "root", password: "pw" }).login();
    await client([endpoint]).login(); // no credentials: nothing to do
  });

  it("keep-alive gives the lease up when no answer comes in time", async () => {
    const { endpoint } = await serve((s) =>
      s.addService(LeaseService, {
        LeaseKeepAlive: async (requests) => {
          for await (const _ of requests) {
            // never answers: a member that lost its leader
          }
        },
      }),
    );
    const c = client([endpoint], { firstKeepAliveTimeoutMs: 300 });
    const t0 = Date.now();
    expect(await c.leaseKeepAlive(7n).next()).toBeUndefined();
    // The server never answers: only the first-keepalive timeout ends the stream.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("a watch halts on `etcdserver: no leader`, and delivers a create that is canceled at once", async () => {
    const { endpoint } = await serve((s) =>
      s.addService(WatchService, {
        Watch: async (requests, call) => {
          for await (const req of requests) {
            const key = dec.decode(req.createRequest?.key ?? new Uint8Array());
            if (key === "noleader") throw new GrpcError(GrpcStatus.UNAVAILABLE, "etcdserver: no leader");
            await call.write({
              header: undefined,
              watchId: 0,
              created: true,
              canceled: true,
              compactRevision: 0,
              cancelReason: "etcdserver: key is not provided",
              fragment: false,
              events: [],
            });
          }
        },
      }),
    );
    const c = client([endpoint]);
    await expect(c.watch("noleader").next()).rejects.toMatchObject({ message: "etcdserver: no leader" });
    const w = c.watch("bad");
    expect(await w.next()).toMatchObject({
      created: true,
      canceled: true,
      cancelReason: "etcdserver: key is not provided",
    });
    expect(await w.next()).toBeUndefined();
  });
});
