// The grpc-gateway JSON API on the client port (etcd 3.6: POST /v3/<service>/<method>, proto3 JSON with proto
// field names, 64-bit integers as strings, bytes as base64). Unary calls answer one JSON object; streaming
// calls (watch, lease keep-alive, snapshot) answer newline-separated `{"result":...}` objects. Errors are
// grpc-gateway v2's `{"code":N,"message":"..."}` with the HTTP status its runtime maps the code to.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { ServerWriter } from "../grpc/server.ts";
import { GrpcError, GrpcStatus } from "../grpc/status.ts";
import { fromGatewayJson, toGatewayValue } from "../proto/json.ts";
import type { MessageType } from "../proto/message-type.ts";
import * as pb from "../proto/gen/etcdserverpb.ts";
import type { EtcdApi } from "./etcd-api.ts";
import { toGrpcError } from "./errors.ts";
import { awaitReady, checkStream, checkUnary, snapshotMethod } from "./interceptor.ts";
import { serveWatch } from "./watch-service.ts";
import { serveSnapshot } from "./services.ts";
import { ErrAuthNotSupported } from "../server/errors.ts";

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

interface UnaryRoute {
  kind: "unary";
  req: MessageType<unknown>;
  res: MessageType<unknown>;
  call: (api: EtcdApi, r: unknown) => unknown;
}

const maxBodyBytes = 4 * 1024 * 1024;

function unary<Q, S>(
  req: MessageType<Q>,
  res: MessageType<S>,
  call: (api: EtcdApi, r: Q) => S | Promise<S>,
): UnaryRoute {
  return {
    kind: "unary",
    req: req as MessageType<unknown>,
    res: res as MessageType<unknown>,
    call: call as UnaryRoute["call"],
  };
}

const routes = new Map<string, UnaryRoute>([
  ["/v3/kv/range", unary(pb.RangeRequest, pb.RangeResponse, (a, r) => a.range(r))],
  ["/v3/kv/put", unary(pb.PutRequest, pb.PutResponse, (a, r) => a.put(r))],
  ["/v3/kv/deleterange", unary(pb.DeleteRangeRequest, pb.DeleteRangeResponse, (a, r) => a.deleteRange(r))],
  ["/v3/kv/txn", unary(pb.TxnRequest, pb.TxnResponse, (a, r) => a.txn(r))],
  ["/v3/kv/compaction", unary(pb.CompactionRequest, pb.CompactionResponse, (a, r) => a.compact(r))],
  ["/v3/lease/grant", unary(pb.LeaseGrantRequest, pb.LeaseGrantResponse, (a, r) => a.leaseGrant(r))],
  ["/v3/lease/revoke", unary(pb.LeaseRevokeRequest, pb.LeaseRevokeResponse, (a, r) => a.leaseRevoke(r))],
  ["/v3/kv/lease/revoke", unary(pb.LeaseRevokeRequest, pb.LeaseRevokeResponse, (a, r) => a.leaseRevoke(r))],
  [
    "/v3/lease/timetolive",
    unary(pb.LeaseTimeToLiveRequest, pb.LeaseTimeToLiveResponse, (a, r) => a.leaseTimeToLive(r)),
  ],
  [
    "/v3/kv/lease/timetolive",
    unary(pb.LeaseTimeToLiveRequest, pb.LeaseTimeToLiveResponse, (a, r) => a.leaseTimeToLive(r)),
  ],
  ["/v3/lease/leases", unary(pb.LeaseLeasesRequest, pb.LeaseLeasesResponse, (a) => a.leaseLeases())],
  ["/v3/kv/lease/leases", unary(pb.LeaseLeasesRequest, pb.LeaseLeasesResponse, (a) => a.leaseLeases())],
  ["/v3/cluster/member/add", unary(pb.MemberAddRequest, pb.MemberAddResponse, (a, r) => a.memberAdd(r))],
  ["/v3/cluster/member/remove", unary(pb.MemberRemoveRequest, pb.MemberRemoveResponse, (a, r) => a.memberRemove(r))],
  ["/v3/cluster/member/update", unary(pb.MemberUpdateRequest, pb.MemberUpdateResponse, (a, r) => a.memberUpdate(r))],
  ["/v3/cluster/member/list", unary(pb.MemberListRequest, pb.MemberListResponse, (a, r) => a.memberList(r))],
  [
    "/v3/cluster/member/promote",
    unary(pb.MemberPromoteRequest, pb.MemberPromoteResponse, (a, r) => a.memberPromote(r)),
  ],
  ["/v3/maintenance/alarm", unary(pb.AlarmRequest, pb.AlarmResponse, (a, r) => a.alarm(r))],
  ["/v3/maintenance/status", unary(pb.StatusRequest, pb.StatusResponse, (a) => a.status())],
  ["/v3/maintenance/defragment", unary(pb.DefragmentRequest, pb.DefragmentResponse, (a) => a.defragment())],
  ["/v3/maintenance/hash", unary(pb.HashRequest, pb.HashResponse, (a) => a.hash())],
  ["/v3/maintenance/hashkv", unary(pb.HashKVRequest, pb.HashKVResponse, (a, r) => a.hashKV(r))],
  [
    "/v3/maintenance/transfer-leadership",
    unary(pb.MoveLeaderRequest, pb.MoveLeaderResponse, (a, r) => a.moveLeader(r)),
  ],
  ["/v3/maintenance/downgrade", unary(pb.DowngradeRequest, pb.DowngradeResponse, (a, r) => a.downgrade(r))],
]);

/** serveGateway answers one /v3/* request. */
export async function serveGateway(api: EtcdApi, req: Req, res: Res, url: URL): Promise<void> {
  const path = url.pathname;
  const route = routes.get(path);
  const streaming = path === "/v3/watch" || path === "/v3/lease/keepalive" || path === "/v3/maintenance/snapshot";
  if (!route && !streaming) {
    if (path.startsWith("/v3/auth/")) {
      return sendError(res, new GrpcError(GrpcStatus.UNIMPLEMENTED, ErrAuthNotSupported.message));
    }
    // grpc-gateway v2's routing error for an unknown path under /v3/.
    return sendError(res, new GrpcError(GrpcStatus.NOT_FOUND, "Not Found"));
  }
  if (req.method !== "POST") {
    return sendError(res, new GrpcError(GrpcStatus.UNIMPLEMENTED, "Method Not Allowed"), 405);
  }
  let body: string;
  try {
    body = await readBody(req);
  } catch (err) {
    return sendError(res, new GrpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message));
  }
  if (route) {
    let parsed: unknown;
    try {
      parsed = fromGatewayJson(route.req, body.trim() === "" ? "{}" : body);
    } catch (err) {
      return sendError(res, new GrpcError(GrpcStatus.INVALID_ARGUMENT, (err as Error).message));
    }
    try {
      await awaitReady(api.server, undefined);
      checkUnary(api.server, grpcMethodOf(path), parsed, {});
      const out = await route.call(api, parsed);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(toGatewayValue(route.res, out)));
    } catch (err) {
      sendError(res, toGrpcError(err));
    }
    return;
  }
  await serveStream(api, path, body, req, res);
}

/** grpcMethodOf names the gRPC method behind a gateway path, for the interceptor's learner rule. */
function grpcMethodOf(path: string): string {
  if (path === "/v3/kv/range") return "/etcdserverpb.KV/Range";
  if (path === "/v3/maintenance/status") return "/etcdserverpb.Maintenance/Status";
  if (path === "/v3/maintenance/snapshot") return snapshotMethod;
  return path;
}

async function serveStream(api: EtcdApi, path: string, body: string, req: Req, res: Res): Promise<void> {
  const abort = new AbortController();
  (req as NodeJS.EventEmitter).on("close", () => abort.abort());
  res.writeHead(200, { "Content-Type": "application/json" });
  const writeResult = (type: MessageType<unknown>, m: unknown): Promise<void> =>
    new Promise((resolve) => {
      if (abort.signal.aborted) return resolve();
      const ok = (res as ServerResponse).write(`${JSON.stringify({ result: toGatewayValue(type, m) })}\n`);
      if (ok) resolve();
      else (res as NodeJS.EventEmitter).once("drain", () => resolve());
    });
  const writer = <T>(type: MessageType<T>): ServerWriter<T> => ({
    metadata: {},
    path,
    peer: "",
    deadline: undefined,
    signal: abort.signal,
    sendMetadata: () => {},
    setTrailers: () => {},
    write: (m: T) => writeResult(type as MessageType<unknown>, m),
  });
  try {
    await awaitReady(api.server, abort.signal);
    checkStream(api.server, grpcMethodOf(path), {});
    if (path === "/v3/watch") {
      const reqs = splitJsonStream(body).map((text) => fromGatewayJson(pb.WatchRequest, text));
      await serveWatch(api, api.server, untilAborted(reqs, abort.signal), writer(pb.WatchResponse));
    } else if (path === "/v3/lease/keepalive") {
      for (const text of splitJsonStream(body)) {
        const r = fromGatewayJson(pb.LeaseKeepAliveRequest, text);
        await writeResult(pb.LeaseKeepAliveResponse as MessageType<unknown>, await api.leaseRenew(r.ID));
      }
    } else {
      await serveSnapshot(api, writer(pb.SnapshotResponse));
    }
  } catch (err) {
    const e = toGrpcError(err);
    if (!abort.signal.aborted)
      (res as ServerResponse).write(`${JSON.stringify({ error: { code: e.code, message: e.message } })}\n`);
  }
  res.end();
}

/** untilAborted yields the requests, then waits (the stream stays open) until the client goes away. */
async function* untilAborted<T>(items: T[], signal: AbortSignal): AsyncGenerator<T> {
  yield* items;
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** splitJsonStream cuts a body of concatenated JSON objects (a client stream) into one text per object. */
function splitJsonStream(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === "}") {
      depth--;
      if (depth === 0 && start >= 0) out.push(body.slice(start, i + 1));
    }
  }
  if (out.length === 0) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, "unexpected end of JSON input");
  return out;
}

function readBody(req: Req): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBodyBytes) {
        reject(new Error(`request body larger than ${maxBodyBytes} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** httpStatusOf mirrors grpc-gateway v2's runtime.HTTPStatusFromCode. */
export function httpStatusOf(code: GrpcStatus): number {
  switch (code) {
    case GrpcStatus.OK:
      return 200;
    case GrpcStatus.CANCELLED:
      return 499;
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.OUT_OF_RANGE:
      return 400;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 504;
    case GrpcStatus.NOT_FOUND:
      return 404;
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return 409;
    case GrpcStatus.PERMISSION_DENIED:
      return 403;
    case GrpcStatus.UNAUTHENTICATED:
      return 401;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcStatus.UNIMPLEMENTED:
      return 501;
    case GrpcStatus.UNAVAILABLE:
      return 503;
    default:
      return 500;
  }
}

function sendError(res: Res, err: GrpcError, status = httpStatusOf(err.code)): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ code: err.code, message: err.message }));
}
