// A deterministic "WAL" for crash tests: entry i is a pure function of i, so a restarted member and a
// reference replay see exactly the same requests. It mixes puts, deletes, txns, leases and compactions.
import { utf8Bytes } from "../../mvcc/bytes.ts";
import { DeleteRangeRequest, InternalRaftRequest, PutRequest, TxnRequest } from "../../proto/gen/etcdserverpb.ts";

const b = (s: string) => utf8Bytes(s);

/** walEntry returns the data of entry i (1-based). */
export function walEntry(i: number): Uint8Array {
  let r: Partial<InternalRaftRequest>;
  if (i % 97 === 0) r = { compaction: { revision: Math.max(1, i - 60), physical: false } };
  else if (i % 31 === 0) r = { leaseGrant: { ID: BigInt(i), TTL: 60 } };
  else if (i % 31 === 5) r = { put: PutRequest.create({ key: b(`lease/${i}`), value: b("x"), lease: BigInt(i - 5) }) };
  else if (i % 31 === 17) r = { leaseRevoke: { ID: BigInt(i - 17) } };
  else if (i % 13 === 0) r = { deleteRange: DeleteRangeRequest.create({ key: b(`k/${i % 7}`), rangeEnd: b(`k/${(i % 7) + 1}`) }) };
  else if (i % 11 === 0) {
    r = {
      txn: TxnRequest.create({
        success: [0, 1, 2].map((j) => ({ requestPut: PutRequest.create({ key: b(`t/${(i + j) % 23}`), value: b(`v${i}`) }) })),
      }),
    };
  } else r = { put: PutRequest.create({ key: b(`k/${i % 7}/${i % 41}`), value: b(`value-${i}`.repeat(1 + (i % 5))) }) };
  return InternalRaftRequest.encode(InternalRaftRequest.create(r));
}
