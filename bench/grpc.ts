// npm run bench -- grpc: the wire layer against @grpc/grpc-js + protobufjs in the same run (calls/s and CPU
// per call, in-process and across processes; codec speed; the start-up cost of loading the stack).
import { benchStartup } from "../engine/store/client/bench-startup.ts";
import { benchGrpc, benchInProcess } from "../engine/store/grpc/bench-grpc.ts";
import { benchCodec } from "../engine/store/proto/bench-codec.ts";

/** benchGrpcArea runs every wire-layer benchmark. */
export async function benchGrpcArea(): Promise<void> {
  await benchStartup();
  benchCodec();
  await benchInProcess();
  await benchGrpc();
}
