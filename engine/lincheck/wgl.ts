// The search: Wing & Gong's linearizability check with Lowe's just-in-time linearization and memoization of
// (linearized set, state) configurations — the algorithm behind porcupine (Lowe, "Testing for
// linearizability", 2017, §4). Calls and returns form one list in time order. Walking it from the front, a
// call may be linearized now if the model accepts it in the current state; reaching a return whose call is
// not linearized yet means the current prefix cannot be extended, so the search backtracks. Unknown-outcome
// operations return at +∞: they may be linearized anywhere after their call, and always last.
import { assert } from "../common/assert.ts";
import { Bitset, stringHash, zobristWords } from "./bitset.ts";
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";

/** Verdict is the answer about a history: linearizable, not linearizable, or the budget ran out first. */
export type Verdict = "ok" | "illegal" | "undecided";

/** SearchBudget bounds one search; past it the answer is "undecided". */
export interface SearchBudget {
  /** maxSteps bounds the calls of model.step. */
  maxSteps: number;
  /** maxCacheBytes bounds the memo of visited configurations (approximate bytes). */
  maxCacheBytes: number;
  /** interrupt is polled every 4096 steps (e.g. a wall-clock deadline the caller owns); true stops the search. */
  interrupt?: (() => boolean) | undefined;
}

/** SearchResult is what one search found. Operation numbers index the ops it was given. */
export interface SearchResult<S> {
  verdict: Verdict;
  steps: number;
  cacheEntries: number;
  /** reason says which bound stopped an undecided search. */
  reason?: string;
  /** longest is the longest linearization found before failing (operation numbers, in order). */
  longest: number[];
  /** stateAfterLongest is the model state after `longest`. */
  stateAfterLongest?: S;
  /** blocked is the operation that returned before it could be linearized after `longest`. */
  blocked?: number;
}

const cacheEntryOverheadBytes = 64;

/** searchLinearization checks one (part of a) history against a model. */
export function searchLinearization<S, I, O>(
  model: Model<S, I, O>,
  ops: readonly Operation<I, O>[],
  budget: SearchBudget,
): SearchResult<S> {
  const n = ops.length;
  if (n === 0) return { verdict: "ok", steps: 0, cacheEntries: 0, longest: [] };
  // Entries 0..2n-1: entry 2i is the call of op i, 2i+1 its return. `head` is the list's sentinel.
  const order = Array.from({ length: 2 * n }, (_, e) => e);
  const time = (e: number): number => {
    const op = ops[e >> 1] as Operation<I, O>;
    return e & 1 ? (op.returnMs ?? Infinity) : op.callMs;
  };
  // Calls before returns at equal times: operations that touch are treated as concurrent (never a false alarm).
  order.sort((a, b) => time(a) - time(b) || (a & 1) - (b & 1) || a - b);
  const head = 2 * n;
  const next = new Int32Array(2 * n + 1).fill(-1);
  const prev = new Int32Array(2 * n + 1).fill(-1);
  let last = head;
  for (const e of order) {
    next[last] = e;
    prev[e] = last;
    last = e;
  }
  const unlink = (e: number): void => {
    const p = prev[e] as number;
    const q = next[e] as number;
    next[p] = q;
    if (q !== -1) prev[q] = p;
  };
  const relink = (e: number): void => {
    const p = prev[e] as number;
    const q = next[e] as number;
    next[p] = e;
    if (q !== -1) prev[q] = e;
  };
  // lift removes a call and its return; unlift undoes the most recent lift (dancing links, reverse order).
  const lift = (call: number): void => {
    unlink(call);
    unlink(call + 1);
  };
  const unlift = (call: number): void => {
    relink(call + 1);
    relink(call);
  };

  const linearized = new Bitset(n, zobristWords(n));
  const stateIds = new Map<string, number>();
  const cache = new Map<number, { bits: Uint32Array; state: number }[]>();
  let cacheEntries = 0;
  let cacheBytes = 0;
  /** remember adds the current configuration to the cache; false when it was there already. */
  const remember = (stateKey: string): boolean => {
    let sid = stateIds.get(stateKey);
    if (sid === undefined) {
      sid = stateIds.size;
      stateIds.set(stateKey, sid);
      cacheBytes += 2 * stateKey.length + cacheEntryOverheadBytes;
    }
    const h = (linearized.hash ^ Math.imul(sid + 1, 0x9e3779b1) ^ stringHash(stateKey)) >>> 0;
    const bucket = cache.get(h);
    if (bucket) {
      for (const c of bucket) if (c.state === sid && linearized.equals(c.bits)) return false;
      bucket.push({ bits: linearized.snapshot(), state: sid });
    } else {
      cache.set(h, [{ bits: linearized.snapshot(), state: sid }]);
    }
    cacheEntries++;
    cacheBytes += linearized.byteLength + cacheEntryOverheadBytes;
    return true;
  };

  const stackCalls: number[] = [];
  const stackStates: S[] = [];
  let state = model.init();
  let steps = 0;
  let longest: number[] = [];
  let stateAfterLongest: S | undefined;
  let blocked: number | undefined;
  const undecided = (reason: string): SearchResult<S> => ({
    verdict: "undecided",
    steps,
    cacheEntries,
    reason,
    longest,
    ...(stateAfterLongest !== undefined ? { stateAfterLongest } : {}),
    ...(blocked !== undefined ? { blocked } : {}),
  });

  let entry = next[head] as number;
  while (next[head] !== -1) {
    assert(entry !== -1, "lincheck: walked off the end of the entry list");
    if ((entry & 1) === 0) {
      const opIndex = entry >> 1;
      const op = ops[opIndex] as Operation<I, O>;
      steps++;
      if (steps > budget.maxSteps) return undecided(`step budget of ${budget.maxSteps} exhausted`);
      if ((steps & 4095) === 0 && budget.interrupt?.()) return undecided(`interrupted after ${steps} steps`);
      const after = model.step(state, op.input, op.output);
      if (after !== undefined) {
        linearized.set(opIndex);
        if (remember(model.key(after))) {
          if (cacheBytes > budget.maxCacheBytes) {
            return undecided(`memo of ${cacheEntries} configurations passed ${budget.maxCacheBytes} bytes`);
          }
          stackCalls.push(entry);
          stackStates.push(state);
          state = after;
          lift(entry);
          entry = next[head] as number;
          continue;
        }
        linearized.clear(opIndex);
      }
      entry = next[entry] as number;
    } else {
      // The return of an operation not linearized yet: this prefix cannot be extended. Backtrack.
      if (stackCalls.length >= longest.length && (stackCalls.length > longest.length || blocked === undefined)) {
        longest = stackCalls.map((e) => e >> 1);
        stateAfterLongest = state;
        blocked = entry >> 1;
      }
      const call = stackCalls.pop();
      if (call === undefined) {
        return {
          verdict: "illegal",
          steps,
          cacheEntries,
          longest,
          ...(stateAfterLongest !== undefined ? { stateAfterLongest } : {}),
          ...(blocked !== undefined ? { blocked } : {}),
        };
      }
      state = stackStates.pop() as S;
      linearized.clear(call >> 1);
      unlift(call);
      entry = next[call] as number;
    }
  }
  return { verdict: "ok", steps, cacheEntries, longest: stackCalls.map((e) => e >> 1) };
}
