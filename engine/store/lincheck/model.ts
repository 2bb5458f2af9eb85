// A sequential specification the checker holds a history against: a pure state machine over immutable states.

import type { Operation } from "./history.ts";

/**
 * Model is a sequential object. States are immutable values: step returns a new state and never changes its
 * argument, because the search keeps old states to backtrack to.
 */
export interface Model<S, I, O> {
  /** init returns the state before any operation. */
  init(): S;
  /**
   * step applies one operation to `state`. `output` is what the caller saw, or undefined when the outcome is
   * unknown (then any output is accepted and only the effect matters). It returns the next state, or
   * undefined when `output` is impossible from `state`.
   */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** key identifies a state: two states with the same key behave alike for every future operation. */
  key(state: S): string;
  /**
   * partition splits a history into sub-histories that can be checked separately. It is sound only when the
   * model is a product of independent objects and every part holds all operations on its objects
   * (linearizability is local: Herlihy & Wing 1990, Theorem 1). Without it the history is one part.
   */
  partition?(ops: readonly Operation<I, O>[]): Operation<I, O>[][];
  /**
   * clock and horizon let the search give up early on models with a clock that never goes back (etcd's
   * revision): clock(state) is the state's clock, horizon(input, output) the largest clock at which an
   * operation with that (known) output can still take effect (undefined: no bound). A configuration whose
   * clock passed the horizon of an operation not linearized yet is dead.
   */
  clock?(state: S): number;
  horizon?(input: I, output: O): number | undefined;
  /**
   * readOnly says that an operation with this output leaves the state as it is in every state where it is
   * legal (output undefined: whatever its outcome). The checker drops unknown-outcome operations that are
   * read-only, and linearizes legal read-only operations as soon as they may go (never a choice to undo).
   */
  readOnly?(input: I, output: O | undefined): boolean;
  /** describe renders an operation for failure reports. */
  describe?(input: I, output: O | undefined): string;
  /** describeState renders a state for failure reports. */
  describeState?(state: S): string;
}
