// A history is what concurrent clients saw: for each operation, who issued it, what it asked, when it was
// called, and either when it returned and with what, or nothing at all — an operation that timed out or failed
// in a way that does not say whether it took effect. Such an operation is open-ended: it may have taken effect
// at any moment after its call (even after everything else), or never (Jepsen's :info, porcupine's
// "unknown" outputs; Lowe, "Testing for linearizability", 2017, §5).
import { assert } from "../../common/assert.ts";

/** Operation is one client call in a history. Times are any monotonic clock in milliseconds. */
export interface Operation<I, O> {
  /** clientId names the sequential client (one thread of calls) that issued the call. */
  clientId: number;
  input: I;
  callMs: number;
  /** returnMs is when the answer arrived; undefined for an operation whose outcome is unknown. */
  returnMs: number | undefined;
  /** output is the answer; undefined exactly when returnMs is. */
  output: O | undefined;
}

/** isUnknown says whether an operation's outcome is unknown (it may or may not have taken effect). */
export function isUnknown<I, O>(op: Operation<I, O>): boolean {
  return op.returnMs === undefined;
}

/**
 * validateHistory asserts the shape a checker relies on: every known operation returns after it is called
 * (or at the same instant), unknown operations carry no output, and one client never has two operations in
 * flight at once (a client is sequential; an unknown operation ends that client's ability to say more, so
 * nothing of the same client may follow it).
 */
export function validateHistory<I, O>(ops: readonly Operation<I, O>[]): void {
  const byClient = new Map<number, Operation<I, O>[]>();
  for (const op of ops) {
    assert(Number.isFinite(op.callMs), () => `lincheck: operation of client ${op.clientId} has call time ${op.callMs}`);
    if (op.returnMs === undefined) {
      assert(op.output === undefined, `lincheck: an unknown-outcome operation of client ${op.clientId} has an output`);
    } else {
      assert(
        Number.isFinite(op.returnMs) && op.returnMs >= op.callMs,
        () => `lincheck: operation of client ${op.clientId} returns at ${op.returnMs} before its call at ${op.callMs}`,
      );
      assert(op.output !== undefined, `lincheck: a returned operation of client ${op.clientId} has no output`);
    }
    const list = byClient.get(op.clientId) ?? [];
    list.push(op);
    byClient.set(op.clientId, list);
  }
  for (const [client, list] of byClient) {
    list.sort((a, b) => a.callMs - b.callMs);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as Operation<I, O>;
      const cur = list[i] as Operation<I, O>;
      assert(
        prev.returnMs !== undefined && prev.returnMs <= cur.callMs,
        () =>
          `lincheck: client ${client} calls at ${cur.callMs} while its call at ${prev.callMs} is ` +
          (prev.returnMs === undefined ? "of unknown outcome (use a new client id after one)" : "still in flight"),
      );
    }
  }
}
