// clientv3's unary retry interceptor (retry_interceptor.go, etcd 3.6): up to 100 attempts, a 25 ms ±10%
// backoff after each round over a quorum of endpoints, retry only what is safe (repeatable calls on
// UNAVAILABLE; writes only when no connection was ever made), and one zap warn line per failed attempt —
// the `"msg":"retrying of unary invoker failed"` line learners see above etcd's errors.

import { unaryCall } from "../../grpc/client-call.ts";
import type { Metadata } from "../../grpc/metadata.ts";
import { GrpcError, GrpcStatus, toGrpcError } from "../../grpc/status.ts";
import type { MethodInfo } from "../../proto/message-type.ts";
import type { CliIo } from "../../cli/io.ts";
import { zapJsonLine } from "../../cli/zap-json.ts";
import type { Call } from "../client-port.ts";
import type { Balancer } from "./balancer.ts";
import { PEER_NONE } from "./balancer.ts";
import { isEtcdError, toClientError } from "./errors.ts";

/** maxUnaryAttempts is clientv3's defaultUnaryMaxRetries. */
export const maxUnaryAttempts = 100;
const backoffWaitBetweenMs = 25;
const backoffJitterFraction = 0.1;

/** UnaryOptions are the client-wide settings every call uses. */
export interface UnaryOptions {
  io: CliIo;
  balancer: Balancer;
  /** target is grpc's target string, `etcd-endpoints://0x.../<first endpoint>`. */
  target: string;
  /** logger is the zap logger name ("etcd-client", or "client" when etcdctl passes its own logger). */
  logger: string;
  endpointCount: number;
  maxSendMessageBytes: number;
  maxReceiveMessageBytes: number;
  /** metadata returns the per-call metadata (API version, auth token). */
  metadata: () => Metadata;
}

/** callDone says whether the caller's context is over, and how. */
export function callDone(call: Call): "deadline" | "canceled" | undefined {
  if (call.deadlineMs !== undefined && Date.now() >= call.deadlineMs) return "deadline";
  if (call.signal?.aborted) {
    const reason: unknown = call.signal.reason;
    return reason instanceof Error && reason.message === "context deadline exceeded" ? "deadline" : "canceled";
  }
  return undefined;
}

function isSafeRetry(err: GrpcError, repeatable: boolean): boolean {
  if (repeatable) {
    if (isEtcdError(err) && err.code !== GrpcStatus.UNAVAILABLE) return false;
    return err.code === GrpcStatus.UNAVAILABLE;
  }
  if (err.code !== GrpcStatus.UNAVAILABLE) return false;
  return err.message === "there is no address available" || err.message === "there is no connection available";
}

function sleep(ms: number, call: Call): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    const limit = call.deadlineMs !== undefined ? Math.min(ms, call.deadlineMs - Date.now()) : ms;
    const t = setTimeout(
      () => {
        call.signal?.removeEventListener("abort", onAbort);
        resolve(limit >= ms);
      },
      Math.max(0, limit),
    );
    call.signal?.addEventListener("abort", onAbort);
  });
}

/** invoke runs one unary RPC through the retry interceptor and converts its error as clientv3 does. */
export async function invoke<Req, Res>(
  o: UnaryOptions,
  method: MethodInfo<Req, Res>,
  req: Req,
  call: Call,
  repeatable: boolean,
): Promise<Res> {
  const quorum = Math.floor(o.endpointCount / 2) + 1;
  let lastErr: GrpcError = new GrpcError(GrpcStatus.UNKNOWN, "no attempt");
  for (let attempt = 0; attempt < maxUnaryAttempts; attempt++) {
    if (attempt > 0 && attempt % quorum === 0) {
      const wait = backoffWaitBetweenMs * (1 + backoffJitterFraction * (Math.random() * 2 - 1));
      if (!(await sleep(wait, call)))
        throw toClientError(
          new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded"),
          () => callDone(call) ?? "deadline",
        );
    }
    let peer = PEER_NONE;
    try {
      const picked = await o.balancer.pick(call.deadlineMs, call.signal);
      peer = picked.peer;
      return await unaryCall(picked.channel, method, req, {
        deadline: call.deadlineMs,
        signal: call.signal,
        waitForReady: true,
        metadata: o.metadata(),
        maxSendMessageBytes: o.maxSendMessageBytes,
        maxReceiveMessageBytes: o.maxReceiveMessageBytes,
      });
    } catch (e) {
      lastErr = toGrpcError(e);
      // The command's deadline timer aborts the signal at the deadline; grpc-go reports that as the deadline.
      if (lastErr.code === GrpcStatus.CANCELLED && callDone(call) === "deadline") {
        lastErr = new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded");
      }
    }
    o.io.stderr(
      zapJsonLine({
        level: "warn",
        tsMs: o.io.nowMs(),
        logger: o.logger,
        caller: "v3@v3.6.14/retry_interceptor.go:68",
        msg: "retrying of unary invoker failed",
        fields: [
          ["target", o.target],
          ["peer", peer],
          ["method", method.path],
          ["attempt", attempt],
          ["error", lastErr.goString()],
        ],
      }),
    );
    if (lastErr.code === GrpcStatus.DEADLINE_EXCEEDED || lastErr.code === GrpcStatus.CANCELLED) {
      if (callDone(call) !== undefined) break;
      continue;
    }
    if (!isSafeRetry(lastErr, repeatable)) break;
  }
  throw toClientError(lastErr, () => callDone(call));
}
