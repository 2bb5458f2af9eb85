// overrides: where generated types must be exactly an existing TypeScript vocabulary. raftpb's messages are
// the raft core's own types (engine/store/raft/raftpb.ts: branded Term/LogIndex/NodeId, its enums, metadata held by
// value), so the core, the WAL and the peer transport pass one object around with no conversion.

/** PackageOverride adjusts how one package is generated. */
export interface PackageOverride {
  /** from is the module (relative to gen/) that provides the enums and brand types named below. */
  from: string;
  /** enums lists proto enums replaced by the module's enum of the same name (same numbers; names may differ). */
  enums: string[];
  /** types maps `Message.field` (proto names) to a brand type from the module, replacing number/bigint. */
  types: Record<string, string>;
  /** required lists `Message.field` message fields held by value (gogoproto nullable=false): always present. */
  required: string[];
}

/** overrides maps a proto package to its override. */
export const overrides: Record<string, PackageOverride> = {
  raftpb: {
    from: "../../raft/raftpb.ts",
    enums: ["EntryType", "MessageType", "ConfChangeType"],
    types: {
      "Entry.term": "Term",
      "Entry.index": "LogIndex",
      "SnapshotMetadata.index": "LogIndex",
      "SnapshotMetadata.term": "Term",
      "Message.to": "NodeId",
      "Message.from": "NodeId",
      "Message.term": "Term",
      "Message.logTerm": "Term",
      "Message.index": "LogIndex",
      "Message.commit": "LogIndex",
      "Message.vote": "NodeId",
      "Message.rejectHint": "LogIndex",
      "HardState.term": "Term",
      "HardState.vote": "NodeId",
      "HardState.commit": "LogIndex",
      "ConfState.voters": "NodeId",
      "ConfState.learners": "NodeId",
      "ConfState.voters_outgoing": "NodeId",
      "ConfState.learners_next": "NodeId",
      "ConfChange.node_id": "NodeId",
      "ConfChangeSingle.node_id": "NodeId",
    },
    required: ["SnapshotMetadata.conf_state", "Snapshot.metadata"],
  },
};
