// Interop with @grpc/grpc-js (a test-only peer): its client against our server, our client against its server,
// over our own .proto files loaded by @grpc/proto-loader.
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterEach, describe, expect, it } from "vitest";
import {
  KVService,
  LeaseService,
  MaintenanceService,
  PutResponse,
  RangeRequest,
  RangeResponse,
  WatchRequest,
  WatchService,
} from "../proto/gen/etcdserverpb.ts";
import { Event_EventType } from "../proto/gen/mvccpb.ts";
import { GrpcChannel } from "./channel.ts";
import { duplexCall, serverStreamCall, unaryCall } from "./client-call.ts";
import { GrpcServer } from "./server.ts";
import { GrpcError, GrpcStatus } from "./status.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// grpc-js's view of the same API, with 64-bit integers as strings so nothing loses precision.
const pkgDef = protoLoader.loadSync("etcdserverpb/rpc.proto", {
  includeDirs: [join(import.meta.dirname, "../proto")],
  keepCase: true,
  longs: String,
  enums: Number,
  defaults: true,
  oneofs: false,
});
const loaded = grpc.loadPackageDefinition(pkgDef) as unknown as {
  etcdserverpb: Record<string, grpc.ServiceClientConstructor>;
};
const etcdserverpb = loaded.etcdserverpb;

type Plain = Record<string, unknown>;

describe("@grpc/grpc-js client → our server", () => {
  async function serve(): Promise<string> {
    const server = new GrpcServer({ maxReceiveMessageBytes: 64 * 1024 });
    const store = new Map<string, string>();
    server.addService(KVService, {
      Put: (req) => {
        store.set(dec.decode(req.key), dec.decode(req.value));
        return PutResponse.create({
          header: { clusterId: 1n, memberId: 18446744073709551615n, revision: 2, raftTerm: 3 },
        });
      },
      Range: (req, call) => {
        if (call.metadata["token"] === "bad")
          throw new GrpcError(GrpcStatus.UNAUTHENTICATED, "etcdserver: invalid auth token");
        const v = store.get(dec.decode(req.key));
        return RangeResponse.create({
          kvs:
            v === undefined
              ? []
              : [{ key: req.key, value: enc.encode(v), createRevision: 2, modRevision: 2, version: 1, lease: 0n }],
          count: v === undefined ? 0 : 1,
        });
      },
      Txn: () => new Promise(() => {}),
    });
    server.addService(MaintenanceService, {
      Snapshot: async (_req, call) => {
        for (let i = 3; i >= 0; i--)
          await call.write({
            header: undefined,
            remainingBytes: i,
            blob: new Uint8Array([i]),
            version: i === 3 ? "3.6.0" : "",
          });
      },
    });
    server.addService(WatchService, {
      Watch: async (requests, call) => {
        let id = 0;
        for await (const req of requests) {
          if (req.createRequest) {
            await call.write({
              header: undefined,
              watchId: id,
              created: true,
              canceled: false,
              compactRevision: 0,
              cancelReason: "",
              fragment: false,
              events: [],
            });
            await call.write({
              header: undefined,
              watchId: id,
              created: false,
              canceled: false,
              compactRevision: 0,
              cancelReason: "",
              fragment: false,
              events: [
                {
                  type: Event_EventType.PUT,
                  kv: {
                    key: req.createRequest.key,
                    value: enc.encode("v"),
                    createRevision: 5,
                    modRevision: 5,
                    version: 1,
                    lease: 0n,
                  },
                  prevKv: undefined,
                },
              ],
            });
            id++;
          }
        }
      },
    });
    const { port } = await server.listen(0);
    cleanups.push(() => server.close());
    return `127.0.0.1:${port}`;
  }

  function client(name: string, target: string): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
    const Ctor = etcdserverpb[name]!;
    const c = new Ctor(target, grpc.credentials.createInsecure());
    cleanups.push(() => c.close());
    return c as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  }

  const unary = (
    c: Record<string, (...args: unknown[]) => unknown>,
    method: string,
    req: Plain,
    md = new grpc.Metadata(),
    deadlineMs?: number,
  ) =>
    new Promise<Plain>((resolve, reject) => {
      const opts = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
      c[method]!(req, md, opts, (err: grpc.ServiceError | null, res: Plain) => (err ? reject(err) : resolve(res)));
    });

  it("unary calls, 64-bit values, metadata and status errors", async () => {
    const target = await serve();
    const kv = client("KV", target);
    const put = await unary(kv, "Put", { key: Buffer.from("foo"), value: Buffer.from("bar") });
    expect(put["header"]).toMatchObject({ member_id: "18446744073709551615", revision: "2", raft_term: "3" });
    const got = await unary(kv, "Range", { key: Buffer.from("foo") });
    expect((got["kvs"] as Plain[])[0]!["value"]).toEqual(Buffer.from("bar"));
    expect(got["count"]).toBe("1");
    const md = new grpc.Metadata();
    md.set("token", "bad");
    await expect(unary(kv, "Range", { key: Buffer.from("foo") }, md)).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      details: "etcdserver: invalid auth token",
    });
    await expect(unary(kv, "Put", { key: Buffer.from("k"), value: Buffer.alloc(100 * 1024) })).rejects.toMatchObject({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: expect.stringMatching(/^grpc: received message larger than max \(\d+ vs\. 65536\)$/),
    });
    await expect(unary(kv, "Txn", {}, new grpc.Metadata(), 100)).rejects.toMatchObject({
      code: grpc.status.DEADLINE_EXCEEDED,
    });
    await expect(unary(kv, "Compact", {})).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
      details: "method Compact not implemented",
    });
  });

  it("server streaming and bidi streaming", async () => {
    const target = await serve();
    const m = client("Maintenance", target);
    const chunks = await new Promise<Plain[]>((resolve, reject) => {
      const out: Plain[] = [];
      const s = m["Snapshot"]!({}) as grpc.ClientReadableStream<Plain>;
      s.on("data", (d: Plain) => out.push(d));
      s.on("end", () => resolve(out));
      s.on("error", reject);
    });
    expect(chunks.map((c) => c["remaining_bytes"])).toEqual(["3", "2", "1", "0"]);
    expect(chunks[0]!["version"]).toBe("3.6.0");

    const w = client("Watch", target);
    const stream = w["Watch"]!() as grpc.ClientDuplexStream<Plain, Plain>;
    const got: Plain[] = [];
    const done = new Promise<void>((resolve) => {
      stream.on("data", (d: Plain) => {
        got.push(d);
        if (got.length === 2) stream.end();
      });
      stream.on("end", () => resolve());
      stream.on("error", () => resolve());
    });
    stream.write({ create_request: { key: Buffer.from("wk") } });
    await done;
    expect(got[0]).toMatchObject({ created: true, watch_id: "0" });
    expect((got[1]!["events"] as Plain[])[0]).toMatchObject({ kv: { key: Buffer.from("wk"), mod_revision: "5" } });
  });
});

describe("our client → @grpc/grpc-js server", () => {
  async function serve(): Promise<string> {
    const server = new grpc.Server();
    const svc = (name: string) => etcdserverpb[name]!.service;
    server.addService(svc("KV"), {
      Range: (call: grpc.ServerUnaryCall<Plain, Plain>, cb: grpc.sendUnaryData<Plain>) => {
        const key = (call.request["key"] as Buffer).toString();
        if (key === "err") {
          cb({
            code: grpc.status.OUT_OF_RANGE,
            details: "etcdserver: mvcc: required revision has been compacted",
          } as grpc.ServiceError);
          return;
        }
        const token = call.metadata.get("token")[0];
        cb(null, {
          header: {
            cluster_id: "592061264149754117",
            member_id: "12189912743189455375",
            revision: "7",
            raft_term: "2",
          },
          kvs: [
            {
              key: Buffer.from(key),
              value: Buffer.from(String(token ?? "")),
              create_revision: "7",
              mod_revision: "7",
              version: "1",
            },
          ],
          count: "1",
        });
      },
    });
    server.addService(svc("Lease"), {
      LeaseKeepAlive: (call: grpc.ServerDuplexStream<Plain, Plain>) => {
        call.on("data", (req: Plain) => call.write({ ID: req["ID"], TTL: "60" }));
        call.on("end", () => call.end());
      },
    });
    server.addService(svc("Maintenance"), {
      Snapshot: (call: grpc.ServerWritableStream<Plain, Plain>) => {
        for (let i = 2; i >= 0; i--) call.write({ remaining_bytes: String(i), blob: Buffer.alloc(1000, i) });
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    cleanups.push(() => new Promise<void>((r) => server.tryShutdown(() => r())));
    return `127.0.0.1:${port}`;
  }

  it("unary, errors, server streaming and bidi", async () => {
    const ch = new GrpcChannel(await serve());
    cleanups.push(() => ch.close());
    const res = await unaryCall(ch, KVService.Range, RangeRequest.create({ key: enc.encode("foo") }), {
      metadata: { token: "t1" },
    });
    expect(res.header).toEqual({
      clusterId: 592061264149754117n,
      memberId: 12189912743189455375n,
      revision: 7,
      raftTerm: 2,
    });
    expect(dec.decode(res.kvs[0]!.value)).toBe("t1");
    await expect(unaryCall(ch, KVService.Range, RangeRequest.create({ key: enc.encode("err") }))).rejects.toMatchObject(
      {
        code: GrpcStatus.OUT_OF_RANGE,
        message: "etcdserver: mvcc: required revision has been compacted",
      },
    );
    await expect(
      unaryCall(ch, KVService.Put, {
        key: enc.encode("k"),
        value: enc.encode("v"),
        lease: 0n,
        prevKv: false,
        ignoreValue: false,
        ignoreLease: false,
      }),
    ).rejects.toMatchObject({
      code: GrpcStatus.UNIMPLEMENTED,
    });
    const snaps = [];
    for await (const s of serverStreamCall(ch, MaintenanceService.Snapshot, {})) snaps.push(s.remainingBytes);
    expect(snaps).toEqual([2, 1, 0]);
    const ka = duplexCall(ch, LeaseService.LeaseKeepAlive);
    await ka.write({ ID: 0x7fffffffffffffffn });
    expect(await ka.read()).toMatchObject({ ID: 0x7fffffffffffffffn, TTL: 60 });
    await ka.end();
    expect(await ka.read()).toBeUndefined();
    // The watch service is not registered on that server.
    const w = duplexCall(ch, WatchService.Watch);
    await w.write(WatchRequest.create({ progressRequest: {} }));
    await expect(w.read()).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
  });
});
