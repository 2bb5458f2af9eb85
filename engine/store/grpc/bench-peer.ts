// bench-peer: the server half of bench-grpc.ts, run as its own process: `ours` (GrpcServer) or `grpcjs`
// (@grpc/grpc-js, the test-only peer) serving KV.Range with a one-key response. Prints the port on stdout.
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { KVService, RangeResponse } from "../proto/gen/etcdserverpb.ts";
import { GrpcServer } from "./server.ts";

const enc = new TextEncoder();
const which = process.argv[2];
// The bench asks for this process's CPU time (µs) over IPC to compute server CPU per call.
// Never outlive the bench (it may crash before it can kill us).
process.on("disconnect", () => process.exit(0));
process.on("message", () => {
  const u = process.cpuUsage();
  process.send?.(u.user + u.system);
});

if (which === "ours") {
  const response = RangeResponse.create({
    header: { clusterId: 592061264149754117n, memberId: 4744746160563374353n, revision: 9618, raftTerm: 120 },
    kvs: [
      {
        key: enc.encode("foo"),
        value: enc.encode("bar"),
        createRevision: 9618,
        modRevision: 9618,
        version: 1,
        lease: 0n,
      },
    ],
    count: 1,
  });
  const server = new GrpcServer();
  server.addService(KVService, { Range: () => response });
  const { port } = await server.listen(0);
  console.log(port);
} else if (which === "grpcjs") {
  const def = protoLoader.loadSync("etcdserverpb/rpc.proto", {
    includeDirs: [join(import.meta.dirname, "../proto")],
    keepCase: true,
    longs: String,
    enums: Number,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    etcdserverpb: Record<string, grpc.ServiceClientConstructor>;
  };
  const response = {
    header: { cluster_id: "592061264149754117", member_id: "4744746160563374353", revision: "9618", raft_term: "120" },
    kvs: [
      {
        key: Buffer.from("foo"),
        value: Buffer.from("bar"),
        create_revision: "9618",
        mod_revision: "9618",
        version: "1",
      },
    ],
    count: "1",
  };
  const server = new grpc.Server();
  server.addService(pkg.etcdserverpb["KV"]!.service, {
    Range: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, response),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  console.log(port);
} else {
  console.error("usage: bench-peer.ts ours|grpcjs");
  process.exit(2);
}
