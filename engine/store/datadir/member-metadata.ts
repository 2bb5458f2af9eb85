// The WAL metadata record of a member: etcdserverpb.Metadata{NodeID, ClusterID}, written at the head of
// every segment, read back on restart to learn who this member is.
import { Metadata } from "../proto/gen/etcdserverpb.ts";

/** MemberMetadata is the member's identity as its WAL records it. */
export interface MemberMetadata {
  nodeId: bigint;
  clusterId: bigint;
}

/** encodeMemberMetadata encodes the WAL metadata payload. */
export function encodeMemberMetadata(m: MemberMetadata): Uint8Array {
  return Metadata.encode({ NodeID: m.nodeId, ClusterID: m.clusterId });
}

/** decodeMemberMetadata decodes the WAL metadata payload. */
export function decodeMemberMetadata(b: Uint8Array): MemberMetadata {
  const m = Metadata.decode(b);
  return { nodeId: m.NodeID, clusterId: m.ClusterID };
}
