// ReadOnly: the leader's queue of ReadIndex requests waiting for a heartbeat round to confirm that it is
// still the leader (Raft thesis §6.4, etcd's ReadOnlySafe). Requests are numbered; a heartbeat carries the
// number of the newest request it confirms (8 bytes, little endian) and a quorum of acknowledgements
// releases every request up to the number they all acknowledged.

import { majorityCommittedIndex } from "./quorum.ts";
import type { LogIndex, Message, NodeId } from "./raftpb.ts";
import { EMPTY_BYTES } from "./empty.ts";

/** ReadState answers a ReadIndex request: once the application applied `index`, the read may be served. */
export interface ReadState {
  index: LogIndex;
  /** requestCtx is the context passed to readIndex(), to match the answer to its request. */
  requestCtx: Uint8Array;
}

/** ReadIndexRequest is a queued request: the original message and the commit index when it arrived. */
export interface ReadIndexRequest {
  req: Message;
  index: LogIndex;
}

/** MAX_PENDING_READ_INDEX_MESSAGES bounds reads a new leader defers until its first commit in its term. */
export const MAX_PENDING_READ_INDEX_MESSAGES = 4096;

/** MAX_PENDING_READ_INDEX_REQUESTS bounds the requests a leader holds (past it, new requests are dropped). */
export const MAX_PENDING_READ_INDEX_REQUESTS = 4096;

/** ReadOnly holds the unconfirmed ReadIndex requests of the current leader term. */
export class ReadOnly {
  private readonly acks = new Map<NodeId, number>();
  private unconfirmed: ReadIndexRequest[] = [];
  /** confirmedReads counts requests confirmed (and removed from the front of `unconfirmed`) so far. */
  private confirmedReads = 0;

  /** pendingCount is the number of requests still waiting for confirmation. */
  pendingCount(): number {
    return this.unconfirmed.length;
  }

  /** addRequest queues a request with the commit index at arrival. Returns false if the queue is full. */
  addRequest(commitIndex: LogIndex, req: Message): boolean {
    if (this.unconfirmed.length >= MAX_PENDING_READ_INDEX_REQUESTS) return false;
    this.unconfirmed.push({ req, index: commitIndex });
    return true;
  }

  /** recvAck records that `from` acknowledged every request up to the number in ctx. */
  recvAck(from: NodeId, ctx: Uint8Array): void {
    if (ctx.length !== 8) return;
    const pos = decodeCounter(ctx);
    const prev = this.acks.get(from) ?? 0;
    if (pos > prev) this.acks.set(from, pos);
  }

  /** maybeAdvance returns the requests now confirmed by a quorum of `voterIds`, oldest first. */
  maybeAdvance(voterIds: readonly NodeId[]): ReadIndexRequest[] {
    const confirmed = majorityCommittedIndex(voterIds, (id) => this.acks.get(id));
    if (confirmed <= this.confirmedReads) return [];
    const n = Math.min(confirmed, this.confirmedReads + this.unconfirmed.length) - this.confirmedReads;
    const done = this.unconfirmed.slice(0, n);
    this.unconfirmed = this.unconfirmed.slice(n);
    this.confirmedReads += n;
    return done;
  }

  /** heartbeatCtx is the context a heartbeat carries: the number of the newest request (empty if none). */
  heartbeatCtx(): Uint8Array {
    if (this.unconfirmed.length === 0) return EMPTY_BYTES;
    return encodeCounter(this.confirmedReads + this.unconfirmed.length);
  }
}

function encodeCounter(n: number): Uint8Array {
  const b = new Uint8Array(8);
  let v = n;
  for (let i = 0; i < 8; i++) {
    b[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return b;
}

function decodeCounter(b: Uint8Array): number {
  let v = 0;
  for (let i = 7; i >= 0; i--) v = v * 256 + b[i]!;
  return v;
}
