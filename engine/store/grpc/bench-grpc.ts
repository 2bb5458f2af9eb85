// bench-grpc: unary round trips per second, our gRPC stack vs @grpc/grpc-js (test-only peer), each server in
// its own process, every client × server pairing, sequential (latency) and 64 in flight (throughput).
//   npx tsx engine/store/grpc/bench-grpc.ts [--seconds 2]      each server in its own process
//   npx tsx engine/store/grpc/bench-grpc.ts --in-process       client and server in this process (steadier CPU/call)
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { KVService, RangeRequest } from "../proto/gen/etcdserverpb.ts";
import { GrpcChannel } from "./channel.ts";
import { unaryCall } from "./client-call.ts";

type Caller = { call: () => Promise<unknown>; close: () => void };

function startPeer(which: "ours" | "grpcjs"): Promise<{ port: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(import.meta.dirname, "bench-peer.ts"), [which], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "inherit", "ipc"],
    });
    child.stdout!.once("data", (d: Buffer) => resolve({ port: Number(String(d).trim()), child }));
    child.once("exit", (code) => reject(new Error(`bench peer ${which} exited with ${code}`)));
  });
}

function ourClient(port: number): Caller {
  const ch = new GrpcChannel(`127.0.0.1:${port}`);
  const req = RangeRequest.create({ key: new TextEncoder().encode("foo") });
  return { call: () => unaryCall(ch, KVService.Range, req), close: () => ch.close() };
}

function grpcjsClient(port: number): Caller {
  const def = protoLoader.loadSync("etcdserverpb/rpc.proto", {
    includeDirs: [join(import.meta.dirname, "../proto")],
    keepCase: true,
    longs: String,
    enums: Number,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    etcdserverpb: Record<string, grpc.ServiceClientConstructor>;
  };
  const c = new pkg.etcdserverpb["KV"]!(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as grpc.Client &
    Record<string, (req: unknown, cb: (err: unknown, res: unknown) => void) => void>;
  const req = { key: Buffer.from("foo") };
  return {
    call: () => new Promise((resolve, reject) => c["Range"]!(req, (err, res) => (err ? reject(err) : resolve(res)))),
    close: () => c.close(),
  };
}

function serverCpuUs(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (us) => resolve(us as number));
    child.send("cpu");
  });
}

interface Result {
  callsPerSec: number;
  clientCpuUsPerCall: number;
  serverCpuUsPerCall: number;
}

async function measure(caller: Caller, server: ChildProcess, inFlight: number, seconds: number): Promise<Result> {
  for (let i = 0; i < 500; i++) await caller.call(); // warm-up (JIT)
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      await caller.call();
      n++;
    }
  };
  const s0 = await serverCpuUs(server);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const s1 = await serverCpuUs(server);
  return { callsPerSec: n / wall, clientCpuUsPerCall: (c.user + c.system) / n, serverCpuUsPerCall: (s1 - s0) / n };
}

/**
 * benchGrpc runs the comparison and prints one line per pairing and concurrency: wall-clock calls/s and CPU
 * µs per call on each side. CPU per call is the steadier number on a shared machine.
 */
export async function benchGrpc(seconds = 2): Promise<void> {
  const peers = { ours: await startPeer("ours"), grpcjs: await startPeer("grpcjs") };
  const clients = { ours: ourClient, grpcjs: grpcjsClient };
  const results: Record<string, Result> = {};
  try {
    for (const inFlight of [1, 64]) {
      for (const c of ["ours", "grpcjs"] as const) {
        for (const s of ["ours", "grpcjs"] as const) {
          // Best of three runs: on a shared machine the slowest runs measure the neighbours, not us.
          let r: Result | undefined;
          for (let round = 0; round < 3; round++) {
            const caller = clients[c](peers[s].port);
            const x = await measure(caller, peers[s].child, inFlight, seconds);
            caller.close();
            if (!r || x.callsPerSec > r.callsPerSec) r = x;
          }
          results[`${c}->${s}@${inFlight}`] = r!;
          console.log(
            `client ${c.padEnd(6)} → server ${s.padEnd(6)} in-flight ${String(inFlight).padStart(2)}: ` +
              `${r!.callsPerSec.toFixed(0).padStart(6)} calls/s, CPU/call client ${r!.clientCpuUsPerCall.toFixed(0).padStart(4)} µs, ` +
              `server ${r!.serverCpuUsPerCall.toFixed(0).padStart(4)} µs`,
          );
        }
      }
      const o = results[`ours->ours@${inFlight}`]!;
      const g = results[`grpcjs->grpcjs@${inFlight}`]!;
      console.log(
        `  ours/grpc-js at ${inFlight} in flight: calls/s ${(o.callsPerSec / g.callsPerSec).toFixed(2)}×, ` +
          `client CPU/call ${(o.clientCpuUsPerCall / g.clientCpuUsPerCall).toFixed(2)}×, ` +
          `server CPU/call ${(o.serverCpuUsPerCall / g.serverCpuUsPerCall).toFixed(2)}×`,
      );
    }
  } finally {
    peers.ours.child.kill();
    peers.grpcjs.child.kill();
  }
}

/**
 * benchInProcess runs client and server of each stack in this one process (our client → our server, grpc-js
 * client → grpc-js server) and prints calls/s and CPU µs per call for both ends together.
 */
export async function benchInProcess(calls = 20_000): Promise<void> {
  const { GrpcServer } = await import("./server.ts");
  const { RangeResponse } = await import("../proto/gen/etcdserverpb.ts");
  const enc = new TextEncoder();
  const ours = new GrpcServer();
  ours.addService(KVService, {
    Range: () =>
      RangeResponse.create({
        header: { clusterId: 1n, memberId: 2n, revision: 3, raftTerm: 4 },
        kvs: [
          {
            key: enc.encode("foo"),
            value: enc.encode("bar"),
            createRevision: 1,
            modRevision: 1,
            version: 1,
            lease: 0n,
          },
        ],
        count: 1,
      }),
  });
  const { port: oursPort } = await ours.listen(0);
  const def = protoLoader.loadSync("etcdserverpb/rpc.proto", {
    includeDirs: [join(import.meta.dirname, "../proto")],
    keepCase: true,
    longs: String,
    enums: Number,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    etcdserverpb: Record<string, grpc.ServiceClientConstructor>;
  };
  const theirs = new grpc.Server();
  const response = {
    header: { cluster_id: "1", member_id: "2", revision: "3", raft_term: "4" },
    kvs: [
      { key: Buffer.from("foo"), value: Buffer.from("bar"), create_revision: "1", mod_revision: "1", version: "1" },
    ],
    count: "1",
  };
  theirs.addService(pkg.etcdserverpb["KV"]!.service, {
    Range: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, response),
  });
  const theirsPort = await new Promise<number>((resolve, reject) =>
    theirs.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  try {
    for (const inFlight of [1, 64]) {
      for (const [name, caller] of [
        ["ours   ", ourClient(oursPort)],
        ["grpc-js", grpcjsClient(theirsPort)],
      ] as const) {
        for (let i = 0; i < 500; i++) await caller.call();
        let left = calls;
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (left-- > 0) await caller.call();
          }),
        );
        const wall = (performance.now() - t0) / 1000;
        const c = process.cpuUsage(c0);
        caller.close();
        console.log(
          `in-process ${name} in-flight ${String(inFlight).padStart(2)}: ${(calls / wall).toFixed(0).padStart(6)} calls/s, ` +
            `${((c.user + c.system) / calls).toFixed(0).padStart(4)} µs CPU/call (client + server)`,
        );
      }
    }
  } finally {
    await ours.close();
    theirs.forceShutdown();
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const i = process.argv.indexOf("--seconds");
  if (process.argv.includes("--in-process")) await benchInProcess();
  else await benchGrpc(i > 0 ? Number(process.argv[i + 1]) : 2);
}
