// invoke: clientv3's unary path — pick a connected endpoint (waiting until the deadline), call, and on failure
// report the attempt (the "retrying of unary invoker failed" hook) and retry what clientv3 retries: read-only
// ("repeatable") RPCs on UNAVAILABLE, any RPC the learner refused when there are other endpoints, and after
// refreshing an expired auth token. Up to 100 attempts, a 25 ms ±10% pause after each round over a quorum of
// endpoints — etcd 3.6's retry_interceptor.go and retry.go.
import type { MethodInfo } from "../proto/message-type.ts";
import { goPeerString, unaryCall, type PeerInfo } from "../grpc/client-call.ts";
import type { Metadata } from "../grpc/metadata.ts";
import { GrpcError, GrpcStatus, toGrpcError } from "../grpc/status.ts";
import type { EtcdClientError } from "./errors.ts";
import { callerEnd, isEtcdServerError, toClientError } from "./errors.ts";
import type { Dedicated, EndpointPool } from "./endpoint-pool.ts";
import type { RetryFailure } from "./retry-warning.ts";

/** RetryPolicy is clientv3's: repeatable RPCs may run twice, nonRepeatable ones must not. */
export type RetryPolicy = "repeatable" | "nonRepeatable";

/** CallOpts bound one client call. */
export interface CallOpts {
  /** timeoutMs is the call's deadline from now (etcdctl --command-timeout); overrides the client default. */
  timeoutMs?: number | undefined;
  /** deadline is an absolute deadline (ms since epoch); wins over timeoutMs. */
  deadline?: number | undefined;
  /** signal cancels the call (`context canceled`). */
  signal?: AbortSignal | undefined;
}

/** InvokeSettings is what the client gives the invoker. */
export interface InvokeSettings {
  pool: EndpointPool;
  defaultTimeoutMs: number | undefined;
  maxUnaryRetries: number;
  backoffWaitBetweenMs: number;
  backoffJitterFraction: number;
  maxCallSendMsgBytes: number;
  maxCallRecvMsgBytes: number;
  /** metadata returns the per-call metadata (auth token, client-api-version). */
  metadata: () => Metadata;
  /** refreshToken re-authenticates; undefined when the client has no credentials. */
  refreshToken: ((opts: CallOpts) => Promise<void>) | undefined;
  onRetryFailure: ((f: RetryFailure) => void) | undefined;
}

/** deadlineOf resolves a call's absolute deadline. */
export function deadlineOf(opts: CallOpts, defaultTimeoutMs: number | undefined): number | undefined {
  if (opts.deadline !== undefined) return opts.deadline;
  const t = opts.timeoutMs ?? defaultTimeoutMs;
  return t !== undefined && t > 0 ? Date.now() + t : undefined;
}

/**
 * contextFailure is the gRPC status a call ended with, as grpc-go reports it: a stream the caller's deadline
 * timer aborted is DEADLINE_EXCEEDED (`context deadline exceeded`), not CANCELLED.
 */
export function contextFailure(e: unknown, deadline: number | undefined, signal: AbortSignal | undefined): GrpcError {
  const g = toGrpcError(e);
  if (g.code === GrpcStatus.CANCELLED && callerEnd(deadline, signal) === "deadline")
    return new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, "context deadline exceeded");
  return g;
}

const learnerRefused = "etcdserver: rpc not supported for learner";

function isSafeRetry(err: EtcdClientError, policy: RetryPolicy, endpoints: number): boolean {
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED || err.code === GrpcStatus.CANCELLED) return false;
  if (err.desc === learnerRefused && endpoints > 1) return true;
  if (policy === "repeatable") {
    if (isEtcdServerError(err.desc) && err.code !== GrpcStatus.UNAVAILABLE) return false;
    return err.code === GrpcStatus.UNAVAILABLE;
  }
  return (
    err.code === GrpcStatus.UNAVAILABLE &&
    (err.desc === "there is no address available" || err.desc === "there is no connection available")
  );
}

function sleepUntil(ms: number, deadline: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const until = deadline !== undefined ? Math.min(ms, deadline - Date.now()) : ms;
    const t = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(deadline === undefined || Date.now() < deadline);
      },
      Math.max(0, until),
    );
    const onAbort = (): void => {
      clearTimeout(t);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** invokeUnary runs one unary RPC with clientv3's retry semantics; errors are EtcdClientErrors. */
export async function invokeUnary<Req, Res>(
  s: InvokeSettings,
  method: MethodInfo<Req, Res>,
  req: Req,
  policy: RetryPolicy,
  opts: CallOpts = {},
  dedicated?: Dedicated,
): Promise<Res> {
  const deadline = deadlineOf(opts, s.defaultTimeoutMs);
  const signal = opts.signal;
  const callerDone = (): boolean => callerEnd(deadline, signal) !== undefined;
  const target = dedicated?.target ?? s.pool.target;
  const endpoints = dedicated ? 1 : s.pool.endpoints.length;
  const quorum = Math.floor(endpoints / 2) + 1;
  let lastErr: EtcdClientError | undefined;
  for (let attempt = 0; attempt < Math.max(1, s.maxUnaryRetries); attempt++) {
    if (attempt > 0 && attempt % quorum === 0) {
      const jitter = s.backoffJitterFraction * (Math.random() * 2 - 1);
      if (!(await sleepUntil(s.backoffWaitBetweenMs * (1 + jitter), deadline, signal))) {
        const code = callerEnd(deadline, signal) === "canceled" ? GrpcStatus.CANCELLED : GrpcStatus.DEADLINE_EXCEEDED;
        throw toClientError(
          new GrpcError(code, code === GrpcStatus.CANCELLED ? "context canceled" : "context deadline exceeded"),
          true,
        );
      }
    }
    let g: GrpcError;
    let peer: PeerInfo | undefined;
    try {
      return await unaryCall(s.pool.callTarget(dedicated), method, req, {
        deadline,
        signal,
        metadata: s.metadata(),
        maxSendMessageBytes: s.maxCallSendMsgBytes,
        maxReceiveMessageBytes: s.maxCallRecvMsgBytes,
        onPeer: (p) => (peer = p),
      });
    } catch (e) {
      g = contextFailure(e, deadline, signal);
      // A call that reached its deadline still waiting for a connection reports why none came, as grpc-go's
      // picker does (the caller's own timer may have ended the wait first).
      const last = peer === undefined ? s.pool.latestError(dedicated) : undefined;
      if (last && g.code === GrpcStatus.DEADLINE_EXCEEDED && g.message === "context deadline exceeded")
        g = new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, `latest balancer error: ${last.message}`);
    }
    const done = callerDone();
    const err = toClientError(g, done);
    lastErr = err;
    s.onRetryFailure?.({ target, peer: goPeerString(peer), method: method.path, attempt, error: err, at: new Date() });
    if (g.code === GrpcStatus.DEADLINE_EXCEEDED || g.code === GrpcStatus.CANCELLED) {
      if (done) throw err;
      continue;
    }
    const authExpired =
      g.message === "etcdserver: invalid auth token" || g.message === "etcdserver: revision of auth store is old";
    const userEmpty = g.message === "etcdserver: user name is empty";
    if (s.refreshToken && (authExpired || userEmpty) && method.path !== "/etcdserverpb.Auth/Authenticate") {
      await s.refreshToken({ deadline, signal });
      continue;
    }
    if (!isSafeRetry(err, policy, endpoints)) throw err;
  }
  throw lastErr!;
}
