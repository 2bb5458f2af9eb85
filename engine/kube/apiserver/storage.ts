// The etcd3 storage layer, as k8s.io/apiserver pkg/storage/etcd3 does it: one key per object; the object's
// resourceVersion is the key's mod_revision and a list's is the header revision; create is
// Txn(CreateRevision(key) == 0, Put) and an update Txn(ModRevision(key) == rv, Put) — so a 409 is a compare
// that really failed in etcd —; GuaranteedUpdate reads, applies a function and retries while the compare
// fails; delete is Txn(ModRevision == read, Delete). Objects with a TTL (events) are put on a shared lease.
import type { EtcdClient } from "../../store/client/index.ts";
import { EtcdClientError, prefixEnd, toBytes } from "../../store/client/index.ts";
import {
  Compare,
  Compare_CompareResult,
  Compare_CompareTarget,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  type TxnResponse,
} from "../../store/proto/gen/etcdserverpb.ts";
import type { KeyValue } from "../../store/proto/gen/mvccpb.ts";
import { ApiError } from "../api/client.ts";
import { CodecError, UnknownFieldsError } from "../api/codec.ts";
import type { KubeObject } from "../api/object.ts";
import { etcdKey, etcdListPrefix, type ResourceInfo } from "../api/resources.ts";
import { TransformError, type EncryptionConfig } from "../api/encryption.ts";
import { decodeValue, encodeValue } from "./codec-bridge.ts";
import { alreadyExists, badRequest, conflict, fail, notFound, timeoutStatus } from "./status.ts";

/** StoredList is a list read: the objects and the revision they were read at. */
export interface StoredList {
  items: KubeObject[];
  revision: number;
}

/** StorageOptions configure the storage layer. */
export interface StorageOptions {
  etcd: EtcdClient;
  encryption?: EncryptionConfig | undefined;
  /** requestTimeoutMs bounds every etcd call (kube-apiserver's --request-timeout, 60 s); then 504 Timeout. */
  requestTimeoutMs: number;
  /** leaseFor gives the etcd lease an object of this resource is put on (events), or 0n. */
  leaseFor: (r: ResourceInfo) => Promise<bigint>;
}

/** UpdateFn turns the current object into the new one; it may throw an ApiError. */
export type UpdateFn = (current: KubeObject) => KubeObject | Promise<KubeObject>;

const td = new TextDecoder();

/** sameObject says whether two objects would be stored alike (resourceVersion aside): a no-op update. */
function sameObject(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return strip(a) === strip(b);
}

/** Storage reads and writes one session's objects in etcd. */
export class Storage {
  constructor(private readonly o: StorageOptions) {}

  /** etcd calls with the request deadline; an etcd failure keeps its text (a 500, as the apiserver answers). */
  private async call<T>(fn: (opts: { timeoutMs: number }) => Promise<T>): Promise<T> {
    try {
      return await fn({ timeoutMs: this.o.requestTimeoutMs });
    } catch (err) {
      if (err instanceof EtcdClientError && err.kind === "context") throw new ApiError(timeoutStatus());
      throw err;
    }
  }

  /** decode turns a stored kv into the object, with resourceVersion = mod_revision. */
  decode(r: ResourceInfo, kv: KeyValue): KubeObject {
    const key = td.decode(kv.key);
    let obj: KubeObject;
    try {
      obj = decodeValue(r, kv.value, key, this.o.encryption);
    } catch (err) {
      let msg = err instanceof Error ? err.message : String(err);
      if (err instanceof TransformError) msg = `unable to transform key "${key}": ${msg}`;
      fail(500, "InternalError", `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
    }
    obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(kv.modRevision) };
    return obj;
  }

  /** encode stores obj's bytes; a value of the wrong type is the decoder's 400 (`cannot be handled as a Pod`). */
  private encode(r: ResourceInfo, obj: KubeObject, key: string): Uint8Array {
    const { resourceVersion: _rv, ...meta } = obj.metadata;
    try {
      return encodeValue(r, { ...obj, metadata: meta }, key, this.o.encryption);
    } catch (err) {
      if (err instanceof CodecError || err instanceof UnknownFieldsError)
        badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${err.message}`);
      throw err;
    }
  }

  /** get reads one object (404 NotFound when absent). */
  async get(r: ResourceInfo, namespace: string, name: string): Promise<KubeObject> {
    const key = etcdKey(r, namespace, name);
    const res = await this.call((o) => this.o.etcd.get(key, o));
    const kv = res.kvs[0];
    if (!kv) notFound(r, name);
    return this.decode(r, kv);
  }

  /** exists says whether an object's key exists (a namespace check on create). */
  async exists(r: ResourceInfo, namespace: string, name: string): Promise<boolean> {
    const key = etcdKey(r, namespace, name);
    const res = await this.call((o) => this.o.etcd.range({ key: toBytes(key), countOnly: true }, o));
    return res.count > 0;
  }

  /** list reads every object of a resource (in one namespace, or all). */
  async list(r: ResourceInfo, namespace?: string, atRevision = 0): Promise<StoredList> {
    const prefix = etcdListPrefix(r, namespace);
    let res;
    try {
      res = await this.call((o) => this.o.etcd.get(prefix, { ...o, prefix: true, revision: atRevision }));
    } catch (err) {
      // An exact read below the compacted revision is the storage layer's 410.
      if (err instanceof EtcdClientError && err.desc === "etcdserver: mvcc: required revision has been compacted")
        fail(410, "Expired", "The resourceVersion for the provided list is too old.");
      throw err;
    }
    return {
      items: res.kvs.map((kv) => this.decode(r, kv)),
      revision: atRevision > 0 ? atRevision : (res.header?.revision ?? 0),
    };
  }

  /** revision is etcd's current revision (a quorum read, as the apiserver's consistent reads start with). */
  async revision(r: ResourceInfo): Promise<number> {
    const prefix = etcdListPrefix(r);
    const res = await this.call((o) =>
      this.o.etcd.range({ key: toBytes(prefix), rangeEnd: prefixEnd(prefix), countOnly: true }, o),
    );
    return res.header?.revision ?? 0;
  }

  /** create writes a new object: Txn(CreateRevision(key) == 0) or 409 AlreadyExists. */
  async create(r: ResourceInfo, obj: KubeObject, dryRun = false): Promise<KubeObject> {
    const name = obj.metadata.name ?? "";
    const key = etcdKey(r, obj.metadata.namespace ?? "", name);
    const k = toBytes(key);
    const value = this.encode(r, obj, key);
    if (dryRun) {
      if (await this.existsKey(key)) alreadyExists(r, name);
      return { ...obj, metadata: { ...obj.metadata } };
    }
    const lease = await this.lease(r);
    const res = await this.call((o) =>
      this.o.etcd.txn(
        {
          compare: [
            Compare.create({
              key: k,
              target: Compare_CompareTarget.CREATE,
              result: Compare_CompareResult.EQUAL,
              createRevision: 0,
            }),
          ],
          success: [{ requestPut: PutRequest.create({ key: k, value, lease }) }],
          failure: [],
        },
        o,
      ),
    );
    if (!res.succeeded) alreadyExists(r, name);
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(res.header?.revision ?? 0) } };
  }

  private async existsKey(key: string): Promise<boolean> {
    const res = await this.call((o) => this.o.etcd.range({ key: toBytes(key), countOnly: true }, o));
    return res.count > 0;
  }

  private async lease(r: ResourceInfo): Promise<bigint> {
    try {
      return await this.o.leaseFor(r);
    } catch (err) {
      if (err instanceof EtcdClientError && err.kind === "context") throw new ApiError(timeoutStatus());
      throw err;
    }
  }

  /**
   * update writes obj over the version its metadata.resourceVersion names: Txn(ModRevision(key) == rv, Put),
   * else Get — a failed compare is the 409 Conflict (or 404 when the key is gone).
   */
  async update(r: ResourceInfo, obj: KubeObject, dryRun = false): Promise<KubeObject> {
    const name = obj.metadata.name ?? "";
    const key = etcdKey(r, obj.metadata.namespace ?? "", name);
    const rv = Number(obj.metadata.resourceVersion);
    const value = this.encode(r, obj, key);
    if (dryRun) {
      const cur = await this.get(r, obj.metadata.namespace ?? "", name);
      if (cur.metadata.resourceVersion !== String(rv)) conflict(r, name);
      return obj;
    }
    const res = await this.putIfMod(r, key, rv, value);
    if (!res.succeeded) {
      const kv = res.responses[0]?.responseRange?.kvs[0];
      if (!kv) notFound(r, name);
      conflict(r, name);
    }
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(res.header?.revision ?? 0) } };
  }

  private async putIfMod(r: ResourceInfo, key: string, rv: number, value: Uint8Array): Promise<TxnResponse> {
    const k = toBytes(key);
    const lease = await this.lease(r);
    return this.call((o) =>
      this.o.etcd.txn(
        {
          compare: [
            Compare.create({
              key: k,
              target: Compare_CompareTarget.MOD,
              result: Compare_CompareResult.EQUAL,
              modRevision: rv,
            }),
          ],
          success: [{ requestPut: PutRequest.create({ key: k, value, lease }) }],
          failure: [{ requestRange: RangeRequest.create({ key: k }) }],
        },
        o,
      ),
    );
  }

  /**
   * guaranteedUpdate reads the object, applies fn and writes the result with a Txn on the mod_revision it read,
   * retrying from the value the failed Txn returned. An unchanged object is not written (its rv stays).
   * A resourceVersion fn leaves on the new object is a precondition: it must equal the current one.
   */
  async guaranteedUpdate(
    r: ResourceInfo,
    namespace: string,
    name: string,
    fn: UpdateFn,
    dryRun = false,
  ): Promise<KubeObject> {
    const key = etcdKey(r, namespace, name);
    let current = await this.get(r, namespace, name);
    for (;;) {
      const rv = Number(current.metadata.resourceVersion);
      const next = await fn(structuredClone(current));
      const want = next.metadata.resourceVersion;
      if (want !== undefined && want !== "" && want !== String(rv)) conflict(r, name);
      if (sameObject(next, current) || dryRun)
        return { ...next, metadata: { ...next.metadata, resourceVersion: String(rv) } };
      const res = await this.putIfMod(r, key, rv, this.encode(r, next, key));
      if (res.succeeded)
        return { ...next, metadata: { ...next.metadata, resourceVersion: String(res.header?.revision ?? 0) } };
      const kv = res.responses[0]?.responseRange?.kvs[0];
      if (!kv) notFound(r, name);
      current = this.decode(r, kv);
    }
  }

  /** deletePrefix removes every key under a prefix (a deleted namespace's objects). */
  async deletePrefix(prefix: string): Promise<void> {
    await this.call((o) => this.o.etcd.deleteRange({ key: toBytes(prefix), rangeEnd: prefixEnd(prefix) }, o));
  }

  /** delete removes the object: Txn(ModRevision == the one read, Delete), retried on conflict. */
  async delete(
    r: ResourceInfo,
    namespace: string,
    name: string,
    precondition: { uid?: string; resourceVersion?: string } = {},
    dryRun = false,
  ): Promise<KubeObject> {
    const key = etcdKey(r, namespace, name);
    const k = toBytes(key);
    let current = await this.get(r, namespace, name);
    for (;;) {
      if (precondition.uid && precondition.uid !== current.metadata.uid)
        conflict(
          r,
          name,
          `Precondition failed: UID in precondition: ${precondition.uid}, UID in object meta: ${current.metadata.uid ?? ""}`,
        );
      if (precondition.resourceVersion && precondition.resourceVersion !== current.metadata.resourceVersion)
        conflict(
          r,
          name,
          `Precondition failed: ResourceVersion in precondition: ${precondition.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ""}`,
        );
      if (dryRun) return current;
      const rv = Number(current.metadata.resourceVersion);
      const res = await this.call((o) =>
        this.o.etcd.txn(
          {
            compare: [
              Compare.create({
                key: k,
                target: Compare_CompareTarget.MOD,
                result: Compare_CompareResult.EQUAL,
                modRevision: rv,
              }),
            ],
            success: [{ requestDeleteRange: DeleteRangeRequest.create({ key: k }) }],
            failure: [{ requestRange: RangeRequest.create({ key: k }) }],
          },
          o,
        ),
      );
      if (res.succeeded) return current;
      const kv = res.responses[0]?.responseRange?.kvs[0];
      if (!kv) notFound(r, name);
      current = this.decode(r, kv);
    }
  }
}
