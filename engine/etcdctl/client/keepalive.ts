// clientv3's lease keep-alive for etcdctl: a LeaseKeepAlive stream that sends a request at once and then a
// third of the TTL after each answer, ends when the server answers TTL <= 0 (expired or revoked) or when no
// answer came within the TTL, and reopens the stream after a lost connection.

import { duplexCall } from "../../grpc/client-call.ts";
import type { Metadata } from "../../grpc/metadata.ts";
import { GrpcStatus, toGrpcError } from "../../grpc/status.ts";
import * as pb from "../../proto/gen/etcdserverpb.ts";
import type { Call } from "../client-port.ts";
import type { LeaseKeepAliveResult } from "../printer/printer.ts";
import type { Balancer } from "./balancer.ts";
import { EtcdClientError, toClientError } from "./errors.ts";

/** defaultTtlMs is clientv3's assumed TTL before the first answer (lease.go defaultTTL). */
const defaultTtlMs = 5000;

function result(r: pb.LeaseKeepAliveResponse): LeaseKeepAliveResult {
  return { header: r.header, ID: r.ID, TTL: r.TTL };
}

/** keepAliveOnce is Lease.KeepAliveOnce: one request on its own stream. */
export async function keepAliveOnce(
  balancer: Balancer,
  metadata: Metadata,
  id: bigint,
  call: Call,
  done: () => "deadline" | "canceled" | undefined,
): Promise<LeaseKeepAliveResult> {
  try {
    const picked = await balancer.pick(call.deadlineMs, call.signal);
    const stream = duplexCall(picked.channel, pb.LeaseService.LeaseKeepAlive, {
      waitForReady: true,
      metadata,
      deadline: call.deadlineMs,
      signal: call.signal,
    });
    await stream.write(pb.LeaseKeepAliveRequest.create({ ID: id }));
    const resp = await stream.read();
    stream.cancel();
    if (!resp) throw new EtcdClientError("etcdserver: requested lease not found", GrpcStatus.NOT_FOUND);
    if (resp.TTL <= 0) throw new EtcdClientError("etcdserver: requested lease not found", GrpcStatus.NOT_FOUND);
    return result(resp);
  } catch (e) {
    throw toClientError(e, done);
  }
}

/** keepAlive is Lease.KeepAlive: responses until the lease is gone. */
export async function* keepAlive(
  balancer: Balancer,
  metadata: () => Metadata,
  id: bigint,
): AsyncGenerator<LeaseKeepAliveResult> {
  let deadline = Date.now() + defaultTtlMs;
  let backoffMs = 500;
  for (;;) {
    const picked = await balancer.pick(undefined, undefined);
    const stream = duplexCall(picked.channel, pb.LeaseService.LeaseKeepAlive, {
      waitForReady: true,
      metadata: metadata(),
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sendSoon = (ms: number) => {
      timer = setTimeout(() => void stream.write(pb.LeaseKeepAliveRequest.create({ ID: id })).catch(() => {}), ms);
    };
    try {
      await stream.write(pb.LeaseKeepAliveRequest.create({ ID: id }));
      for (;;) {
        const wait = deadline - Date.now();
        if (wait <= 0) return;
        let expire: ReturnType<typeof setTimeout> | undefined;
        const resp = await Promise.race([
          stream.read(),
          new Promise<"expired">((r) => (expire = setTimeout(() => r("expired"), wait))),
        ]);
        clearTimeout(expire);
        if (resp === "expired") return;
        if (resp === undefined) throw new Error("keepalive stream ended");
        backoffMs = 500;
        if (resp.ID !== id) continue;
        if (resp.TTL <= 0) return;
        deadline = Date.now() + resp.TTL * 1000;
        yield result(resp);
        sendSoon((resp.TTL * 1000) / 3);
      }
    } catch (e) {
      const err = toGrpcError(e);
      if (err.code === GrpcStatus.CANCELLED) return;
      await new Promise((r) => setTimeout(r, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 3000);
    } finally {
      clearTimeout(timer);
      stream.cancel();
    }
  }
}
