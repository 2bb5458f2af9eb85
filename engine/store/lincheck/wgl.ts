// The search: Wing & Gong's linearizability check with Lowe's just-in-time linearization and memoization of
// (linearized set, state) configurations — the algorithm behind porcupine (Lowe, "Testing for
// linearizability", 2017, §4). Calls and returns form one list in time order. Walking it from the front, a
// call may be linearized now if the model accepts it in the current state; reaching a return whose call is
// not linearized yet means the current prefix cannot be extended, so the search backtracks. Unknown-outcome
// operations return at +∞: they may be linearized anywhere after their call, and always last.
//
// Two shortcuts keep histories of thousands of etcd operations cheap; both only cut branches that cannot
// succeed, and a property test checks the verdicts against the plain search: read-only operations are
// linearized as soon as they may go, never as a choice (proof at the loop), and for models with a monotonic
// clock (Model.clock/horizon: etcd's revision) a configuration is dead as soon as the clock passes the
// horizon of an operation still pending, instead of when that operation's return is reached.
import { assert } from "../../common/assert.ts";
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
  const expiry = horizonIndex(model, ops);
  const readOnly = model.readOnly?.bind(model);
  const memoFull = (): string => `memo of ${cacheEntries} configurations passed ${budget.maxCacheBytes} bytes`;

  // The stack of linearized calls, the states before them, and whether each was a forced read (see below).
  const stackCalls: number[] = [];
  const stackStates: S[] = [];
  const stackKeys: string[] = [];
  const stackForced: boolean[] = [];
  let state = model.init();
  let stateKey = model.key(state);
  let steps = 0;
  let longest: number[] = [];
  let stateAfterLongest: S | undefined;
  let blocked: number | undefined;
  const result = (verdict: Verdict, reason?: string): SearchResult<S> => ({
    verdict,
    steps,
    cacheEntries,
    ...(reason !== undefined ? { reason } : {}),
    longest,
    ...(stateAfterLongest !== undefined ? { stateAfterLongest } : {}),
    ...(blocked !== undefined ? { blocked } : {}),
  });
  const overBudget = (): string | undefined => {
    steps++;
    if (steps > budget.maxSteps) return `step budget of ${budget.maxSteps} exhausted`;
    if ((steps & 4095) === 0 && budget.interrupt?.()) return `interrupted after ${steps} steps`;
    return undefined;
  };
  const push = (call: number, after: S, afterKey: string, forced: boolean): void => {
    expiry?.linearized(call >> 1, true);
    stackCalls.push(call);
    stackStates.push(state);
    stackKeys.push(stateKey);
    stackForced.push(forced);
    state = after;
    stateKey = afterKey;
    lift(call);
  };
  /**
   * backtrack undoes linearized calls until one that was a free choice, and returns the entry after it (the
   * next alternative); -1 when there is nothing left to undo. A forced read is never a choice: undoing it
   * means the configuration before it is dead too.
   */
  const backtrack = (): number => {
    for (;;) {
      const call = stackCalls.pop();
      if (call === undefined) return -1;
      state = stackStates.pop() as S;
      stateKey = stackKeys.pop() as string;
      const forced = stackForced.pop() as boolean;
      linearized.clear(call >> 1);
      expiry?.linearized(call >> 1, false);
      unlift(call);
      if (!forced) return next[call] as number;
    }
  };
  const noteDeadEnd = (opIndex: () => number): void => {
    if (stackCalls.length > longest.length || blocked === undefined) {
      longest = stackCalls.map((e) => e >> 1);
      stateAfterLongest = state;
      blocked = opIndex();
    }
  };

  remember(stateKey);
  // arrived: the search just reached a new configuration (first, try to linearize a read there).
  let arrived = true;
  let entry = next[head] as number;
  while (next[head] !== -1) {
    if (arrived && expiry?.expired(state)) {
      // Some operation not linearized yet can no longer take effect: nothing from here can succeed.
      noteDeadEnd(() => expiry.firstExpired(state));
      entry = backtrack();
      if (entry === -1) return result("illegal");
      continue;
    }
    if (arrived) {
      // Reads first. A candidate call (one before the first pending return) that the model says is read-only
      // and that is legal now can be linearized at once without losing anything: in any linearization from
      // here, moving it to the front keeps real-time order (it is a candidate) and every later state (it
      // changes none wherever it is legal). So it is never a choice point, and if the configuration after it
      // was seen before (and so is dead), this one is dead too. This keeps concurrent reads of one state from
      // multiplying the search.
      arrived = false;
      let dead = false;
      let forced = false;
      for (let e = next[head] as number; readOnly && e !== -1 && (e & 1) === 0; e = next[e] as number) {
        const op = ops[e >> 1] as Operation<I, O>;
        if (!readOnly(op.input, op.output)) continue;
        const why = overBudget();
        if (why) return result("undecided", why);
        const after = model.step(state, op.input, op.output);
        if (after === undefined) continue;
        linearized.set(e >> 1);
        if (!remember(stateKey)) {
          linearized.clear(e >> 1);
          dead = true;
          break;
        }
        if (cacheBytes > budget.maxCacheBytes) return result("undecided", memoFull());
        push(e, state, stateKey, true);
        forced = true;
        break;
      }
      if (forced) {
        arrived = true;
        continue;
      }
      if (dead) {
        entry = backtrack();
        if (entry === -1) return result("illegal");
        continue;
      }
      entry = next[head] as number;
    }
    assert(entry !== -1, "lincheck: walked off the end of the entry list");
    if ((entry & 1) === 0) {
      const why = overBudget();
      if (why) return result("undecided", why);
      const opIndex = entry >> 1;
      const op = ops[opIndex] as Operation<I, O>;
      const after = model.step(state, op.input, op.output);
      if (after !== undefined) {
        const afterKey = model.key(after);
        linearized.set(opIndex);
        if (remember(afterKey)) {
          if (cacheBytes > budget.maxCacheBytes) return result("undecided", memoFull());
          push(entry, after, afterKey, false);
          arrived = true;
          continue;
        }
        linearized.clear(opIndex);
      }
      entry = next[entry] as number;
    } else {
      // The return of an operation not linearized yet: this prefix cannot be extended. Backtrack.
      noteDeadEnd(() => entry >> 1);
      entry = backtrack();
      if (entry === -1) return result("illegal");
    }
  }
  return { verdict: "ok", steps, cacheEntries, longest: stackCalls.map((e) => e >> 1) };
}

/** HorizonIndex answers "has the clock passed the horizon of an operation not linearized yet?". */
interface HorizonIndex<S> {
  /** linearized records that an operation was linearized (true) or undone (false). */
  linearized(op: number, done: boolean): void;
  /** expired says whether the state's clock passed some pending operation's horizon. */
  expired(state: S): boolean;
  /** firstExpired names the pending operation with the lowest passed horizon (for reports; O(n)). */
  firstExpired(state: S): number;
}

/** horizonIndex counts pending operations by horizon in a Fenwick tree over the distinct horizons. */
function horizonIndex<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): HorizonIndex<S> | undefined {
  const clock = model.clock?.bind(model);
  const horizonOf = model.horizon?.bind(model);
  if (!clock || !horizonOf) return undefined;
  const horizons = ops.map((op) => (op.output === undefined ? undefined : horizonOf(op.input, op.output)));
  const values = [...new Set(horizons.filter((h): h is number => h !== undefined))].sort((a, b) => a - b);
  /** below returns how many distinct horizons are < x. */
  const below = (x: number): number => {
    let lo = 0;
    let hi = values.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((values[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const slot = horizons.map((h) => (h === undefined ? -1 : below(h)));
  const pending = new Uint8Array(ops.length).fill(1);
  const tree = new Int32Array(values.length + 1);
  const add = (i: number, d: number): void => {
    for (let x = i + 1; x <= values.length; x += x & -x) tree[x] = (tree[x] as number) + d;
  };
  const countBelow = (n: number): number => {
    let sum = 0;
    for (let x = n; x > 0; x -= x & -x) sum += tree[x] as number;
    return sum;
  };
  for (const sl of slot) if (sl >= 0) add(sl, 1);
  return {
    linearized(op, done) {
      pending[op] = done ? 0 : 1;
      const sl = slot[op] as number;
      if (sl >= 0) add(sl, done ? -1 : 1);
    },
    expired: (state) => countBelow(below(clock(state))) > 0,
    firstExpired(state) {
      const c = clock(state);
      let best = -1;
      for (let i = 0; i < ops.length; i++) {
        const h = horizons[i];
        if (h === undefined || h >= c || pending[i] === 0) continue;
        if (best === -1 || h < (horizons[best] as number)) best = i;
      }
      return best;
    },
  };
}
