// The bridge between the key-value model's operations and etcd's v3 API: the request a client sends for an
// operation, and the model output read back from etcd's response. Keys and values are UTF-8 strings.
import { assert } from "../../common/assert.ts";
import { utf8Bytes, utf8String } from "../mvcc/bytes.ts";
import {
  Compare_CompareResult,
  Compare_CompareTarget,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  type Compare,
  type DeleteRangeResponse,
  type PutResponse,
  type RangeResponse,
  type RequestOp,
  type TxnRequest,
  type TxnResponse,
} from "../proto/gen/etcdserverpb.ts";
import type { KeyValue } from "../proto/gen/mvccpb.ts";
import type { KvBranch, KvCompare, KvInput, KvOutput, KvRecord } from "./kv-model.ts";

/** EtcdKvRequest is the one RPC an operation becomes. Fields not given take proto defaults. */
export type EtcdKvRequest =
  | { rpc: "range"; req: Partial<RangeRequest> }
  | { rpc: "put"; req: Partial<PutRequest> }
  | { rpc: "deleteRange"; req: Partial<DeleteRangeRequest> }
  | { rpc: "txn"; req: Partial<TxnRequest> };

/** EtcdKvResponse is the response of that RPC. */
export type EtcdKvResponse = RangeResponse | PutResponse | DeleteRangeResponse | TxnResponse;

const results: Record<KvCompare["op"], Compare_CompareResult> = {
  "=": Compare_CompareResult.EQUAL,
  "!=": Compare_CompareResult.NOT_EQUAL,
  "<": Compare_CompareResult.LESS,
  ">": Compare_CompareResult.GREATER,
};

function compareOf(key: string, c: KvCompare): Compare {
  const base = { result: results[c.op], key: utf8Bytes(key), rangeEnd: new Uint8Array(0) };
  switch (c.target) {
    case "value":
      return { ...base, target: Compare_CompareTarget.VALUE, value: utf8Bytes(c.value) };
    case "version":
      return { ...base, target: Compare_CompareTarget.VERSION, version: c.value };
    case "createRevision":
      return { ...base, target: Compare_CompareTarget.CREATE, createRevision: c.value };
    case "modRevision":
      return { ...base, target: Compare_CompareTarget.MOD, modRevision: c.value };
  }
}

function branchOp(key: string, b: KvBranch): RequestOp {
  const k = utf8Bytes(key);
  switch (b.kind) {
    case "put":
      return { requestPut: PutRequest.create({ key: k, value: utf8Bytes(b.value) }) };
    case "delete":
      return { requestDeleteRange: DeleteRangeRequest.create({ key: k }) };
    case "get":
      return { requestRange: RangeRequest.create({ key: k }) };
  }
}

/** etcdRequest returns the RPC that performs an operation (a linearizable read for get and range). */
export function etcdRequest(input: KvInput): EtcdKvRequest {
  switch (input.kind) {
    case "get":
      return { rpc: "range", req: { key: utf8Bytes(input.key) } };
    case "range":
      return { rpc: "range", req: { key: utf8Bytes(input.start), rangeEnd: utf8Bytes(input.end) } };
    case "put":
      return { rpc: "put", req: { key: utf8Bytes(input.key), value: utf8Bytes(input.value) } };
    case "delete":
      return { rpc: "deleteRange", req: { key: utf8Bytes(input.key) } };
    case "txn":
      return {
        rpc: "txn",
        req: {
          compare: [compareOf(input.key, input.compare)],
          success: [branchOp(input.key, input.then)],
          failure: [branchOp(input.key, input.otherwise)],
        },
      };
  }
}

function recordOf(kv: KeyValue): KvRecord {
  return {
    value: utf8String(kv.value),
    version: kv.version,
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
  };
}

/** etcdOutput reads an operation's model output from the response of etcdRequest(input). */
export function etcdOutput(input: KvInput, resp: EtcdKvResponse): KvOutput {
  const revision = resp.header?.revision ?? 0;
  assert(revision > 0, "lincheck: an etcd response without a header revision");
  switch (input.kind) {
    case "get": {
      const kvs = (resp as RangeResponse).kvs;
      return { revision, kv: kvs[0] ? recordOf(kvs[0]) : null };
    }
    case "range":
      return { revision, kvs: (resp as RangeResponse).kvs.map((kv) => [utf8String(kv.key), recordOf(kv)] as const) };
    case "put":
      return { revision };
    case "delete":
      return { revision, deleted: (resp as DeleteRangeResponse).deleted };
    case "txn": {
      const t = resp as TxnResponse;
      const out: KvOutput = { revision, succeeded: t.succeeded };
      const range = t.responses[0]?.responseRange;
      if (range) out.kv = range.kvs[0] ? recordOf(range.kvs[0]) : null;
      return out;
    }
  }
}
