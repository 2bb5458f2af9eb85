// ProposalTracker: requests on their way through Raft, as etcd's wait.Wait plus its raft node's proposal
// channel. A proposal made while there is no leader waits for one (etcd's node blocks on propc until a leader
// exists); every proposal ends when its entry is applied, when the request timeout passes (with the error
// etcd's parseProposeCtxErr picks), when the client goes away, or when the member stops.
import type { Counter, Gauge } from "../metrics/registry.ts";
import { EtcdError, GrpcCode } from "../mvcc/errors.ts";
import { ProposalDroppedError } from "../raft/index.ts";
import { ErrCanceled, ErrProposeContextDeadline, ErrStopped, ErrTooManyRequests } from "./errors.ts";

/** maxPendingProposals bounds the proposals one member holds (waiting for a leader or for their apply). */
export const maxPendingProposals = 50_000;

/** ProposalHost is the member side the tracker needs (EtcdServer implements it). */
export interface ProposalHost {
  hasLeader(): boolean;
  /** proposeTimeoutError is etcd's parseProposeCtxErr for a proposal that Raft accepted at `startMs`. */
  proposeTimeoutError(startMs: number): EtcdError;
  nowMs(): number;
  readonly requestTimeoutMs: number;
}

/** ProposalMetrics are the families a tracker of client proposals counts in. */
export interface ProposalMetrics {
  /** pending is etcd_server_proposals_pending (proposals Raft accepted and not yet applied). */
  pending: Gauge;
  /** failed is etcd_server_proposals_failed_total. */
  failed: Counter;
}

/**
 * Submit hands a proposal to Raft and calls `done` with Raft's answer, now or within the same event-loop turn
 * (the driver batches the turn's proposals into one message); a ProposalDroppedError("no-leader") means: wait
 * for a leader.
 */
export type Submit = (done: (err: Error | undefined) => void) => void;

interface Pending<T> {
  id: bigint;
  submit: Submit;
  resolve: (r: T) => void;
  reject: (e: EtcdError) => void;
  startMs: number;
  /** accepted says Raft took the proposal (otherwise it still waits for a leader). */
  accepted: boolean;
  timer: NodeJS.Timeout;
  onAbort?: () => void;
  signal?: AbortSignal | undefined;
}

/** ProposalTracker holds the member's pending proposals; T is what an applied proposal resolves with. */
export class ProposalTracker<T> {
  private readonly byId = new Map<bigint, Pending<T>>();
  private waiting: Pending<T>[] = [];
  private stopped = false;

  constructor(
    private readonly host: ProposalHost,
    private readonly metrics?: ProposalMetrics,
  ) {}

  /** size is the number of pending proposals. */
  get size(): number {
    return this.byId.size;
  }

  /** propose submits proposal `id` to Raft (now, or once there is a leader) and resolves when it is applied. */
  propose(id: bigint, submit: Submit, signal?: AbortSignal): Promise<T> {
    if (this.stopped) return Promise.reject(ErrStopped);
    if (this.byId.size >= maxPendingProposals) return Promise.reject(ErrTooManyRequests);
    if (signal?.aborted) return Promise.reject(ErrCanceled);
    return new Promise<T>((resolve, reject) => {
      const p: Pending<T> = {
        id,
        submit,
        resolve,
        reject,
        startMs: this.host.nowMs(),
        accepted: false,
        timer: setTimeout(() => this.fail(p, this.timeoutError(p)), this.host.requestTimeoutMs),
        signal,
      };
      this.byId.set(id, p);
      if (signal) {
        p.onAbort = () => this.fail(p, ErrCanceled);
        signal.addEventListener("abort", p.onAbort, { once: true });
      }
      this.handToRaft(p);
    });
  }

  /** applied delivers the result of the entry carrying request `id`; false when nobody waits for it. */
  applied(id: bigint, result: T): boolean {
    const p = this.byId.get(id);
    if (!p) return false;
    this.finish(p);
    p.resolve(result);
    return true;
  }

  /** onLeader hands the proposals that waited for a leader to Raft. */
  onLeader(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const p of waiting) if (this.byId.has(p.id)) this.handToRaft(p);
  }

  /** stop fails every pending proposal with `etcdserver: server stopped`. */
  stop(): void {
    this.stopped = true;
    for (const p of [...this.byId.values()]) this.fail(p, ErrStopped);
  }

  private handToRaft(p: Pending<T>): void {
    if (!this.host.hasLeader()) {
      this.waiting.push(p);
      return;
    }
    p.submit((err) => this.submitted(p, err));
  }

  private submitted(p: Pending<T>, err: Error | undefined): void {
    if (!this.byId.has(p.id)) return; // ended meanwhile (timeout, abort, stop)
    if (err instanceof ProposalDroppedError && err.reason === "no-leader") {
      this.waiting.push(p);
      return;
    }
    if (err) {
      this.fail(p, new EtcdError(err.message, GrpcCode.Unknown));
      return;
    }
    p.accepted = true;
    this.metrics?.pending.add(1);
  }

  /** timeoutError: a proposal Raft never took times out like a context (etcd: the node's Propose). */
  private timeoutError(p: Pending<T>): EtcdError {
    return p.accepted ? this.host.proposeTimeoutError(p.startMs) : ErrProposeContextDeadline;
  }

  private fail(p: Pending<T>, err: EtcdError): void {
    if (!this.byId.has(p.id)) return;
    this.finish(p);
    if (err !== ErrStopped) this.metrics?.failed.inc();
    p.reject(err);
  }

  private finish(p: Pending<T>): void {
    this.byId.delete(p.id);
    clearTimeout(p.timer);
    if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
    if (p.accepted) this.metrics?.pending.add(-1);
  }
}
