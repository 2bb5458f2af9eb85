// kube-apiserver's etcd compactor (k8s.io/apiserver pkg/storage/etcd3/compact.go): every interval (5 min),
// Txn(Version(compact_rev_key) == local time, Put(compact_rev_key, rev)) else Get(compact_rev_key). The key's
// version is the logical clock shared by every apiserver of the cluster; its value is the revision being
// compacted. When the compare holds, the compactor compacts to the revision it saw one round earlier (none on
// the first round); when it fails another compactor took the round, and this one adopts its clock.
import type { EtcdClient } from "../../store/client/index.ts";
import { toBytes } from "../../store/client/index.ts";
import {
  Compare,
  Compare_CompareResult,
  Compare_CompareTarget,
  PutRequest,
  RangeRequest,
} from "../../store/proto/gen/etcdserverpb.ts";

/** compactRevKey is the key the compactors coordinate through. */
export const compactRevKey = "compact_rev_key";
/** defaultCompactionIntervalMs is kube-apiserver's --etcd-compaction-interval (5 min). */
export const defaultCompactionIntervalMs = 5 * 60_000;

/** CompactionResult says what one round did: the revision compacted (0: none this round). */
export interface CompactionResult {
  compacted: number;
}

/** Compactor holds one apiserver's compaction state (its logical time and the revision to compact next). */
export class Compactor {
  private time = 0;
  private rev = 0;

  constructor(
    private readonly etcd: EtcdClient,
    private readonly timeoutMs: number,
  ) {}

  /** round runs one compaction round. */
  async round(): Promise<CompactionResult> {
    const key = toBytes(compactRevKey);
    const res = await this.etcd.txn(
      {
        compare: [
          Compare.create({
            key,
            target: Compare_CompareTarget.VERSION,
            result: Compare_CompareResult.EQUAL,
            version: this.time,
          }),
        ],
        success: [{ requestPut: PutRequest.create({ key, value: toBytes(String(this.rev)) }) }],
        failure: [{ requestRange: RangeRequest.create({ key }) }],
      },
      { timeoutMs: this.timeoutMs },
    );
    const curRev = res.header?.revision ?? 0;
    if (!res.succeeded) {
      this.time = res.responses[0]?.responseRange?.kvs[0]?.version ?? 0;
      this.rev = curRev;
      return { compacted: 0 };
    }
    this.time++;
    const target = this.rev;
    this.rev = curRev;
    if (target === 0) return { compacted: 0 };
    await this.etcd.compact(target, { timeoutMs: this.timeoutMs });
    return { compacted: target };
  }
}
