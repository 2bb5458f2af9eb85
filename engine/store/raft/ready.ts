// Ready: one batch of work the core hands to its driver, with the obligations written on its fields.

import type { Entry, HardState, Message, NodeId, Snapshot } from "./raftpb.ts";
import type { ReadState } from "./read-only.ts";
import type { SoftState } from "./state.ts";

/**
 * Ready is one batch of work for the driver. Handle it in this order, then call advance():
 *   1. Persist `snapshot` (if any), then `entries` and `hardState` — durably (fdatasync) when `mustSync`.
 *      Then make them visible to the Storage (MemoryStorage.applySnapshot / append / setHardState).
 *   2. Send `messages` — only AFTER step 1 is durable. Exception (Raft thesis §10.2.1, as etcd does): while
 *      this node is leader, it may send before or in parallel with its own write.
 *   3. Apply `snapshot` and `committedEntries` to the state machine, in order; call applyConfChange() for
 *      each ConfChange entry.
 *   4. advance().
 */
export interface Ready {
  /** softState is set when the leader or this node's role changed. Need not be persisted. */
  softState?: SoftState | undefined;
  /** hardState is set when term, vote or commit changed. Persist it BEFORE sending messages. */
  hardState?: HardState | undefined;
  /**
   * readStates answer readIndex() calls: serve the read with ctx requestCtx once the applied index
   * reaches `index`.
   */
  readStates: ReadState[];
  /** entries to append to stable storage BEFORE sending messages. An entry at index i replaces i and after. */
  entries: Entry[];
  /** snapshot to persist (and apply) BEFORE the entries and before sending messages. */
  snapshot?: Snapshot | undefined;
  /** committedEntries to apply to the state machine, in order. They were persisted by an earlier (or this) Ready. */
  committedEntries: Entry[];
  /**
   * messages to send AFTER entries, hardState and snapshot are durable (leaders: see above). Send each MsgSnap
   * with the application's snapshot and call reportSnapshot() with the outcome; call reportUnreachable() for a
   * peer that could not be reached.
   */
  messages: Message[];
  /** mustSync: the write in step 1 must be durable (fdatasync) — term, vote or entries changed. */
  mustSync: boolean;
}

/** Peer is an initial member for bootstrap(); context is etcd's encoded member (name, peer URLs). */
export interface Peer {
  id: NodeId;
  context?: Uint8Array;
}
