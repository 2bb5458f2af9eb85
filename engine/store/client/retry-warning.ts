// retry-warning: clientv3's "retrying of unary invoker failed" warning, the JSON line etcdctl writes to stderr
// each time an attempt of a unary RPC fails. The client reports a RetryFailure through its onRetryFailure
// hook; formatRetryWarning renders it exactly as etcd 3.6's zap logger does.
import type { EtcdClientError } from "./errors.ts";

/** RetryFailure describes one failed attempt of a unary call. */
export interface RetryFailure {
  /** target is the grpc target name: `etcd-endpoints://0xc000123456/127.0.0.1:2379`. */
  target: string;
  /** peer is grpc-go's peer.Peer text: `Peer{Addr: '127.0.0.1:2379', LocalAddr: '127.0.0.1:53514', AuthInfo: <nil>}`. */
  peer: string;
  /** method is the RPC path: `/etcdserverpb.KV/Range`. */
  method: string;
  /** attempt counts from 0. */
  attempt: number;
  /** error is the attempt's failure; the line carries its grpc-go form. */
  error: EtcdClientError;
  /** at is when the attempt failed. */
  at: Date;
}

/** retryWarningCaller is the zap caller etcd 3.6.14's client reports for the line (as etcdctl's printer). */
export const retryWarningCaller = "v3@v3.6.14/retry_interceptor.go:68";

/** zapTime formats a time as etcd's zap config does ("2006-01-02T15:04:05.000000Z0700", local time). */
export function zapTime(d: Date): string {
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  const offsetMin = -d.getTimezoneOffset();
  const zone =
    offsetMin === 0
      ? "Z"
      : `${offsetMin > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offsetMin) / 60))}${pad(Math.abs(offsetMin) % 60)}`;
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:` +
    `${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}000${zone}`
  );
}

/**
 * formatRetryWarning renders the warning line (no trailing newline), field order as etcd 3.6.14 logs it:
 * level, ts, logger, caller, msg, target, peer, method, attempt, error. (3.6.0-3.6.5 had no peer field.) The
 * logger is named when the client has one: etcdctl's clients log as "etcd-client", those it makes per endpoint
 * (endpoint health, snapshot save) as "client".
 */
export function formatRetryWarning(f: RetryFailure, caller = retryWarningCaller, logger?: string): string {
  const named = logger !== undefined ? `"logger":${JSON.stringify(logger)},` : "";
  return (
    `{"level":"warn","ts":"${zapTime(f.at)}",${named}"caller":${JSON.stringify(caller)},` +
    `"msg":"retrying of unary invoker failed","target":${JSON.stringify(f.target)},"peer":${JSON.stringify(f.peer)},` +
    `"method":${JSON.stringify(f.method)},"attempt":${f.attempt},"error":${JSON.stringify(f.error.goString())}}`
  );
}
